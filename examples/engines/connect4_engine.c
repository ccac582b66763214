/* A Connect Four engine speaking boardlab's engine protocol (docs/interop.md, "Engines in any
 * language"): plain C99, no dependencies.
 *
 *   gcc -O2 -o connect4_engine connect4_engine.c
 *   boardlab match "engine:cmd=./connect4_engine" alphabeta --game connect4 -n 20
 *
 * It plays 7x6 Connect Four: a winning move if it has one, else the move that blocks the
 * opponent's win, else the best move of a fixed-depth negamax with alpha-beta over a small
 * evaluation (stones nearer the centre count more), trying the central columns first. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 7
#define H 6
#define DEPTH 6
#define WIN 100000
#define GAME "connect4:width=7,height=6,connect=4"

static char board[H][W]; /* row 0 is the top row, as in the position text */
static const int order[W] = {3, 2, 4, 1, 5, 0, 6};
static const int weight[W] = {1, 2, 3, 5, 3, 2, 1};
static long nodes;

static int free_row(int col) { /* the row a stone dropped in col lands on, or -1 if it is full */
    for (int row = H - 1; row >= 0; row--)
        if (board[row][col] == '.') return row;
    return -1;
}

static int run(int row, int col, int dr, int dc, char who) {
    int n = 0;
    for (row += dr, col += dc; row >= 0 && row < H && col >= 0 && col < W && board[row][col] == who;
         row += dr, col += dc)
        n++;
    return n;
}

static int wins(int row, int col, char who) { /* would a stone of who at (row, col) make four? */
    static const int dirs[4][2] = {{0, 1}, {1, 0}, {1, 1}, {1, -1}};
    for (int d = 0; d < 4; d++)
        if (1 + run(row, col, dirs[d][0], dirs[d][1], who) + run(row, col, -dirs[d][0], -dirs[d][1], who) >= 4)
            return 1;
    return 0;
}

static int evaluate(char me, char opp) {
    int score = 0;
    for (int row = 0; row < H; row++)
        for (int col = 0; col < W; col++)
            score += board[row][col] == me ? weight[col] : board[row][col] == opp ? -weight[col] : 0;
    return score;
}

static int negamax(char me, char opp, int depth, int alpha, int beta) {
    int any = 0;
    nodes++;
    for (int i = 0; i < W; i++) { /* a win now ends the search of this position */
        int row = free_row(order[i]);
        if (row >= 0 && wins(row, order[i], me)) return WIN + depth;
    }
    if (depth == 0) return evaluate(me, opp);
    for (int i = 0; i < W; i++) {
        int col = order[i], row = free_row(col);
        if (row < 0) continue;
        any = 1;
        board[row][col] = me;
        int score = -negamax(opp, me, depth - 1, -beta, -alpha);
        board[row][col] = '.';
        if (score > alpha) alpha = score;
        if (alpha >= beta) break;
    }
    return any ? alpha : 0; /* a full board is a draw */
}

static int choose(char me, char opp, int *value) {
    int best = -1, best_score = -2 * WIN;
    for (int pass = 0; pass < 2; pass++) /* my win first, then the opponent's to block */
        for (int i = 0; i < W; i++) {
            int row = free_row(order[i]);
            if (row >= 0 && wins(row, order[i], pass == 0 ? me : opp)) {
                *value = pass == 0 ? WIN : 0;
                return order[i];
            }
        }
    for (int i = 0; i < W; i++) {
        int col = order[i], row = free_row(col);
        if (row < 0) continue;
        board[row][col] = me;
        int score = -negamax(opp, me, DEPTH - 1, -2 * WIN, -best_score);
        board[row][col] = '.';
        if (best < 0 || score > best_score) best = col, best_score = score;
    }
    *value = best_score;
    return best;
}

static int read_position(char *text, char *me) { /* "rows/.../rows MOVER PLY"; 1 if it fits 7x6 */
    char *rows = strtok(text, " "), *mover = strtok(NULL, " ");
    int row = 0, col = 0;
    if (rows == NULL || mover == NULL) return 0;
    for (char *c = rows; *c; c++) {
        if (*c == '/') {
            if (col != W) return 0;
            row++, col = 0;
        } else if (row < H && col < W && strchr(".XO", *c)) {
            board[row][col++] = *c;
        } else {
            return 0;
        }
    }
    *me = mover[0];
    return row == H - 1 && col == W && (*me == 'X' || *me == 'O');
}

int main(void) {
    static char line[4096];
    char me = 'X';
    setvbuf(stdout, NULL, _IOLBF, 0); /* every answer goes out at its line's end */
    while (fgets(line, sizeof line, stdin) != NULL) { /* the end of the input ends the engine */
        line[strcspn(line, "\r\n")] = '\0';
        if (strncmp(line, "boardlab ", 9) == 0) {
            printf("name c4-example\nready\n");
        } else if (strncmp(line, "game ", 5) == 0) {
            printf(strcmp(line + 5, GAME) == 0 ? "ready\n" : "refuse this engine plays only " GAME "\n");
        } else if (strncmp(line, "position ", 9) == 0) {
            if (!read_position(line + 9, &me)) printf("# cannot read this position\n");
        } else if (strncmp(line, "go", 2) == 0) { /* a fixed depth: it answers in milliseconds */
            int value;
            nodes = 0;
            int col = choose(me, me == 'X' ? 'O' : 'X', &value);
            if (value >= WIN || value <= -WIN) printf("info value %d\n", value > 0 ? 1 : -1);
            printf("info depth %d nodes %ld pv %d\nmove %d\n", DEPTH, nodes, col + 1, col + 1);
        } else if (strcmp(line, "quit") == 0) {
            break;
        }
    }
    return 0;
}
