// boardlab's page: draws what the server says and sends clicks as moves in the game's notation.
// The server alone decides legality; this page only highlights the legal moves it was given.
"use strict";

const $ = (id) => document.getElementById(id);
const LETTERS = "abcdefghijklmnopqrstuvwxyz";
const ui = {
  meta: null, view: null, gameId: null, selected: null, analysis: null, polling: false,
  replay: null, replayPly: 0, busy: false, review: null, clocks: null, tournament: null,
  refusal: null,  // the server's last refusal of a new game (its message and field)
  started: null,  // the panel's settings the game on the board started with (JSON), to tell a change
};

async function api(method, path, body, signal) {
  // the server's answer; an Error with the server's one-line detail and the status otherwise
  const init = { method, headers: {}, signal };
  if (body !== undefined) { init.headers["content-type"] = "application/json"; init.body = JSON.stringify(body); }
  const reply = await fetch(path, init);
  const data = await reply.json().catch(() => ({ detail: reply.statusText }));
  if (!reply.ok) {
    const err = new Error(data.detail || reply.statusText);
    err.status = reply.status;
    err.field = data.field || null;  // the field of the body at fault, where the server names one
    throw err;
  }
  return data;
}

function say(text, kind) {
  $("message").textContent = text || "";
  $("message").className = "message" + (kind ? " " + kind : "");
}

function counted(n, one, many = one + "s") { return n + " " + (n === 1 ? one : many); }

function sentence(text) { return /[.!?]$/.test(text) ? text : text + "."; }

function fieldLabel(field) {
  // the box of the panel a refused field of a new game came from, in the panel's words ("" for none)
  const badges = document.querySelectorAll(".side .badge");
  const labels = { time_control: "Game clock", game: "Game", think: "Seconds per agent move",
    "sides.0": badges[0].textContent + "'s player", "sides.1": badges[1].textContent + "'s player",
    moves: "Moves", position: "Position" };
  return labels[field] || "";
}

function refusal(err) {
  // the server's reason, led by the name of the box at fault where it names one
  const label = fieldLabel(err.field);
  return label ? label + ": " + err.message : err.message;
}

function clearError() {
  // an error answered about an earlier position (not an information line) goes when a new one comes
  if (!$("message").classList.contains("info")) say("");
}

// --- setup: games, options, players -----------------------------------------------------

function gameMeta(name) { return ui.meta.games.find((g) => g.name === name); }

function fillGames() {
  const select = $("game-select");
  select.innerHTML = "";
  for (const g of ui.meta.games) select.add(new Option(g.title, g.name));
  select.onchange = () => { fillOptions({}); fillSides(); };
}

function fillOptions(values) {
  const box = $("options");
  box.innerHTML = "";
  const meta = gameMeta($("game-select").value);
  for (const o of meta.options) {
    if (o.name === "ply_cap" && values.ply_cap === undefined) continue; // shown when the URL sets it
    const label = document.createElement("label");
    label.textContent = o.name.replace("_", " ") + " ";
    let input;
    if (o.choices.length) {
      input = document.createElement("select");
      for (const c of o.choices) input.add(new Option(c, c));
    } else if (o.type === "bool") {
      input = document.createElement("select");
      for (const c of ["true", "false"]) input.add(new Option(c, c));
    } else {
      input = document.createElement("input");
      input.size = 8;
    }
    input.value = values[o.name] !== undefined ? values[o.name] : o.default;
    input.dataset.opt = o.name;
    input.dataset.default = o.default;
    input.title = o.help;
    input.id = "opt-" + o.name;
    label.appendChild(input);
    box.appendChild(label);
  }
  // the help of the game on the board (its variant's own); the default variant's for another game
  const shown = ui.view && ui.view.position;
  $("notation").textContent = shown && shown.name === meta.name ? shown.notation : meta.notation;
}

function gameSpec() {
  const name = $("game-select").value;
  const parts = [];
  for (const input of $("options").querySelectorAll("[data-opt]")) {
    if (input.value.trim() !== "" && input.value.trim() !== input.dataset.default) {
      parts.push(input.dataset.opt + "=" + input.value.trim());
    }
  }
  return parts.length ? name + ":" + parts.join(",") : name;
}

function fillSides() {
  const game = $("game-select").value;
  for (const colour of [0, 1]) {
    const select = $("side-" + colour);
    const keep = select.value;
    select.innerHTML = "";
    select.add(new Option("person", "person"));
    for (const a of ui.meta.agents) {
      if (a.games.length && !a.games.includes(game)) continue;
      if (PATH_AGENTS.includes(a.name) && !ui.meta.allow_paths) continue;
      select.add(new Option(a.name, a.name));
    }
    select.value = [...select.options].some((o) => o.value === keep) ? keep : (colour === 0 ? "person" : "greedy");
  }
}

function sideSpec(colour) {
  const name = $("side-" + colour).value;
  if (name === "person") return null;
  const opts = $("side-" + colour + "-opts").value.trim();
  return opts ? name + ":" + opts : name;
}

const DEFAULT_SIDES = ["person", "greedy"];
// Agents that load or run code named by a path (hall.py's PATH_AGENTS): offered only with serve --allow-paths.
const PATH_AGENTS = ["course", "engine"];
const DEFAULT_GAME = "quixo";

function setSide(colour, spec) {
  // Sets the side from a spec; what went wrong (an agent not offered for the game), or "".
  const [name, ...rest] = (spec || "person").split(":");
  const select = $("side-" + colour);
  if (![...select.options].some((o) => o.value === name)) {
    const agent = ui.meta.agents.find((a) => a.name === name);
    const game = $("game-select").value;
    const why = !agent ? "no agent " + name
      : agent.games.length && !agent.games.includes(game) ? "agent " + name + " plays only " + agent.games.join(", ")
      : "agent " + name + " needs serve --allow-paths";
    setSide(colour, DEFAULT_SIDES[colour]);
    return (colour ? "o" : "x") + "=" + spec + ": " + why + "; " + select.options[select.selectedIndex].text +
      " plays " + ["X", "O"][colour] + ".";
  }
  select.value = name;
  $("side-" + colour + "-opts").value = name === "person" ? "" : rest.join(":");
  return "";
}

function setGame(spec) {
  // Sets the game and its options from a spec; what could not be set (each falls back to the
  // default), as sentences.
  const notes = [];
  const [name, ...tail] = spec.split(":");
  const rest = tail.join(":");
  if (!gameMeta(name)) {
    const names = ui.meta.games.map((g) => g.name).join(", ");
    notes.push("game=" + spec + ": no game " + name + " (the games: " + names + "); playing " + gameMeta(DEFAULT_GAME).title + ".");
    setGame(DEFAULT_GAME);
    return notes;
  }
  const meta = gameMeta(name);
  $("game-select").value = name;
  const values = {};
  if (rest) for (const item of rest.split(",")) {
    const [key, ...v] = item.split("=");
    const value = v.join("=");
    const option = meta.options.find((o) => o.name === key);
    const choices = option && (option.choices.length ? option.choices : option.type === "bool" ? ["true", "false"] : null);
    if (!option) {
      notes.push("game=" + spec + ": " + name + " has no option " + key + " (its options: " +
        meta.options.map((o) => o.name).join(", ") + ").");
    } else if (choices && !choices.includes(value)) {
      notes.push("game=" + spec + ": " + key + " must be one of " + choices.join(", ") + ", not " + value +
        "; playing " + key + "=" + option.default + ".");
    } else values[key] = value;
  }
  fillOptions(values);
  fillSides();
  return notes;
}

// --- games ------------------------------------------------------------------------------

async function newGame(extra, notes, push = false) {
  // Starts a game from the panel's settings; null once the server started it, else the server's
  // reason. ``notes`` (what the URL asked for that could not be set) are shown with the outcome.
  // The game on the board is left once the new one started: a refused one leaves it playable.
  // ``push``: the new game gets an entry of its own in the browser's history (Back returns).
  const told = (notes || []).join(" ");
  say(told);
  const settings = gameSettings();
  const body = { ...settings, ...extra };
  let view;
  try { view = await api("POST", "/api/games", body); }
  catch (err) {
    ui.refusal = err;  // for the page to mend what it names (see fallBack)
    const reason = sentence(refusal(err));
    say(told.includes(reason) ? told : (told ? told + " " : "") + reason);  // said once
    return reason;
  }
  leaveGame();
  ui.replay = null;
  $("replay-controls").hidden = true;
  ui.started = JSON.stringify(settings);
  show(view, push);
  return null;
}

function leaveGame() {
  // The game on the board is left (another takes its place, or the page goes): the server keeps
  // it for a reload or the browser's Back to show again, and drops it first when it needs room.
  if (ui.gameId) fetch("/api/games/" + ui.gameId + "/leave", { method: "POST", keepalive: true }).catch(() => {});
}

function noteSettings() {
  // Settings of the panel that differ from those the game on the board started with wait for
  // New game: the panel says so (changing them alone changes nothing on the board). A stored
  // game replayed is no game the settings started: opening one (which sets the panel's game to
  // its own) changes nothing to note.
  $("settings-note").hidden = !ui.started || Boolean(ui.replay) || JSON.stringify(gameSettings()) === ui.started;
}

function gameSettings() {
  // the panel's game, players, seconds per agent move and game clock (the server checks them)
  return { game: gameSpec(), sides: [sideSpec(0), sideSpec(1)], think: parseFloat($("think").value),
    time_control: $("clock").value.trim() };
}

const PASTED_FIELDS = ["moves", "position"];

async function loadPasted(text) {
  // The text is tried as moves from the start, then as a position: the server reads both, with
  // the panel's game, players and clock. A refusal of one of those is said naming its box and
  // ends the loading: the text was not what the server refused.
  if (!text) { say("Nothing to load: paste a position or moves in the box first."); return; }  // the game stays
  const body = gameSettings();
  const errors = [];
  for (const extra of [{ moves: text }, { position: text }]) {
    try {
      const view = await api("POST", "/api/games", { ...body, ...extra });
      leaveGame();
      ui.replay = null;
      $("replay-controls").hidden = true;
      ui.started = JSON.stringify(body);
      say("");
      show(view, true);
      return;
    } catch (err) {
      if (!PASTED_FIELDS.includes(err.field)) { say(sentence(refusal(err)) + " Nothing was loaded."); return; }
      errors.push(err.message);
    }
  }
  say("The pasted text, as moves: " + errors[0] + "; as a position: " + sentence(errors[1]));
}

async function act(path, body) {
  if (!ui.gameId || ui.busy) return;
  ui.busy = true;
  try {
    say("");
    show(await api("POST", "/api/games/" + ui.gameId + path, body));
  } catch (err) {
    say(err.message);
    if (err.field === "ply") {  // the game moved on: another page plays it too; shown as it stands
      const id = ui.gameId;
      api("GET", "/api/games/" + id).then((view) => { if (id === ui.gameId && view.version !== ui.view.version) show(view); })
        .catch(() => {});
    }
    draw();
  }
  finally { ui.busy = false; }
}

function playMove(move) {
  // the moves on the board go with the move: where another page played the same game in
  // between, the server refuses it, and this page shows the game as it now stands
  ui.selected = null;
  act("/move", { move, ply: ui.view.moves.length });
}

function show(view, push = false) {
  ui.view = view;
  ui.gameId = view.id;
  ui.selected = null;
  setClocks(view);
  draw();
  updateUrl(push);
  noteSettings();
  if (view.thinking !== null || agentToMove(view)) poll();
  else if ($("hints").checked) analyse();
  else clearAnalysis();
}

function agentToMove(view) {
  return view.outcome === null && view.sides[view.position.to_move] !== null;
}

async function poll() {
  if (ui.polling) return;
  ui.polling = true;
  try {
    while (ui.view && ui.gameId === ui.view.id) {
      await new Promise((r) => setTimeout(r, 200));
      const id = ui.gameId;
      let view;
      try { view = await api("GET", "/api/games/" + id); } catch (err) { say(err.message); break; }
      if (id !== ui.gameId) break;
      setClocks(view);
      if (view.version !== ui.view.version) { ui.view = view; clearError(); draw(); updateUrl(); }
      else drawThinking(view);
      if (view.thinking === null && !agentToMove(view)) break;
    }
  } finally { ui.polling = false; }
  if (ui.view && $("hints").checked) analyse(); else clearAnalysis();
}

function movesText(moves, position) {
  // Digits written together ("4453") only where the server reads them one move each: single-digit
  // moves on a board at most 9 wide (on a wider one "12" is column 12); commas otherwise.
  const compact = moves.every((m) => /^[0-9]$/.test(m)) && position.width !== undefined && position.width <= 9;
  return moves.join(compact ? "" : ",");
}

const GAME_PARAMS = ["game", "pos", "moves", "x", "o", "think", "tc"];

function gameParams(v, plies = v.moves.length) {
  // the address of the game ``v`` after its first ``plies`` moves (what a reload starts again)
  const params = new URLSearchParams();
  params.set("game", v.game);
  if (!v.start_initial) params.set("pos", v.start);
  if (plies) params.set("moves", movesText(v.moves.slice(0, plies).map((m) => m.move), v.position));
  params.set("x", v.sides[0] || "person");
  params.set("o", v.sides[1] || "person");
  params.set("think", String(v.think));
  if (v.time_control) params.set("tc", v.time_control);
  return params;
}

function addressNames(v, params) {
  // Whether the address ``params`` names the server's game ``v``: its game, start, players and
  // clock, and its moves or the first of them (an agent may have moved since the address was written).
  const asked = (key) => (key === "tc" ? (params.get(key) || "").replace(/ /g, "+") : params.get(key) || "");
  for (let plies = v.moves.length; plies >= 0; plies--) {
    const ours = gameParams(v, plies);
    if (GAME_PARAMS.every((key) => (ours.get(key) || "") === asked(key))) return true;
  }
  return false;
}

async function attach(params) {
  // The game the address names by its ``id``, where the server still has it as the address
  // says (a reload, the browser's Back): shown as it stands, its result, clocks and times
  // intact; false where there is none (a new game is then started from the address).
  const id = params.get("id");
  if (!id || !/^[0-9a-f]{1,64}$/.test(id)) return false;
  let view;
  try { view = await api("GET", "/api/games/" + id); } catch (err) { return false; }
  if (!addressNames(view, params)) return false;
  ui.started = JSON.stringify(gameSettings());
  show(view);
  return true;
}

function updateUrl(push = false) {
  // The page's state as its address: the game on the board (its id, for a reload to show it
  // again, and what starts it again where the server no longer has it), and the stored
  // tournament listed and the stored game replayed with the position shown, if any. ``push``:
  // a new entry in the browser's history (a new game), else the address of this one changes.
  const v = ui.view;
  const params = v ? gameParams(v) : new URLSearchParams();
  if (v) params.set("id", v.id);
  if ($("hints").checked) params.set("hints", "1");
  const tournament = ui.replay ? ui.replay.tournament : ui.tournament;
  if (tournament) params.set("tournament", tournament);
  if (ui.replay) {
    params.set("index", String(ui.replay.index));
    if (ui.replayPly) params.set("ply", String(ui.replayPly));
  }
  if (!v && !tournament) return;
  if (push) history.pushState(null, "", "?" + params.toString());
  else history.replaceState(null, "", "?" + params.toString());
}

// --- drawing ------------------------------------------------------------------------------

function draw() {
  const v = ui.replay ? ui.replay.positions[ui.replayPly] : ui.view && ui.view.position;
  const board = $("board");
  // a keyboard's place on the board survives the redraw: the same cell, column or object again
  const focused = board.contains(document.activeElement) ? document.activeElement.dataset.key || "" : null;
  board.innerHTML = "";
  if (!v) return;
  $("title").textContent = v.title;
  $("notation").textContent = v.notation;
  const drawer = { quixo: drawQuixo, connect4: drawConnect4, tictactoe: drawTicTacToe, nim: drawNim }[v.name] ||
    (v.grid ? drawGrid : drawList);
  drawer(board, v);
  if (focused !== null) refocus(board, focused);
  drawTurn(v);
  drawMoves();
  const live = !ui.replay && ui.view;
  // while an agent thinks (or is about to) the server refuses a person's undo and resignation
  const waiting = live && (ui.view.thinking !== null || agentToMove(ui.view));
  $("undo").disabled = !live || !ui.view.can_undo || waiting;
  $("resign").disabled = !live || ui.view.outcome !== null || !ui.view.sides.includes(null) || waiting;
  drawLastDecision();
  if (!ui.replay) drawThinking(ui.view);
  drawClocks();
  drawReview();
}

// --- game clocks: the server's reading at its answer, the running one counted down here -------

function clockText(seconds) {
  // m:ss.s, its tenths cut rather than rounded, as chess clocks show them (as the terminal does)
  const tenths = Math.max(0, Math.floor(seconds * 10 + 1e-6));
  const rest = tenths % 600;
  return Math.floor(tenths / 600) + ":" + String(Math.floor(rest / 10)).padStart(2, "0") + "." + (rest % 10);
}

function setClocks(view) {
  ui.clocks = view && view.time_control
    ? { id: view.id, left: view.clock_left, toGo: view.clock_moves_to_go, running: view.clock_running,
        at: performance.now(), asked: false }
    : null;
}

function clockReading(colour) {
  const c = ui.clocks;
  return c.running === colour ? c.left[colour] - (performance.now() - c.at) / 1000 : c.left[colour];
}

function drawClocks() {
  const box = $("clocks"), c = ui.clocks;
  box.hidden = !c || Boolean(ui.replay) || !ui.view || c.id !== ui.view.id;
  if (box.hidden) return;
  for (const colour of [0, 1]) {
    const clock = $("clock-" + colour), left = clockReading(colour);
    const toGo = c.toGo && c.toGo[colour];  // on a clock of periods: the moves it must last
    clock.textContent = ui.view.position.symbols[colour] + " " + clockText(left);
    if (toGo) {
      const moves = document.createElement("span");
      moves.className = "to-go";
      moves.textContent = " " + counted(toGo, "move") + " to go";
      clock.appendChild(moves);
    }
    clock.title = toGo ? counted(toGo, "move") + " to make on this time, then the clock gains its base again" : "";
    clock.classList.toggle("running", c.running === colour);
    clock.classList.toggle("empty", left <= 0);
    clock.dataset.left = Math.max(0, left).toFixed(1);
  }
}

async function tickClocks() {
  // A person's clock that reaches zero here asks the server, which says whether it ran out
  // (the game lost on time) or reads on; an agent's is polled while it thinks.
  const c = ui.clocks;
  drawClocks();
  if (!c || ui.replay || c.asked || c.running === null || ui.view.sides[c.running] !== null) return;
  if (clockReading(c.running) > 0) return;
  c.asked = true;
  const id = ui.gameId;
  let view;
  try { view = await api("GET", "/api/games/" + id); } catch (err) { say(err.message); return; }
  if (id !== ui.gameId || ui.clocks !== c) return;
  if (view.version !== ui.view.version) show(view); else { setClocks(view); drawClocks(); }
}

function drawLastDecision() {
  // What the agent of the last move said beside it: value, search, policy (whatever it has).
  const box = $("last-decision");
  box.innerHTML = "";
  if (ui.replay || !ui.view || !ui.view.moves.length) return;
  const last = ui.view.moves[ui.view.moves.length - 1];
  const d = last.decision;
  if (!d || (d.value === undefined && !d.info && !d.policy_moves)) return;
  const head = document.createElement("h2");
  head.textContent = "Last agent move: " + ui.view.position.symbols[last.mover] + " " + last.move;
  box.appendChild(head);
  const mover = ui.view.position.symbols[last.mover];  // it decided with its side to move
  box.appendChild(decisionBox({ ...d, move: last.move, agent: ui.view.sides[last.mover] }, mover, "last-decision-info"));
}

function drawTurn(v) {
  // the players' badges carry the game's symbols (W and B in Hexapawn)
  document.querySelectorAll(".side .badge").forEach((b, i) => { b.textContent = v.symbols[i]; });
  const turn = $("turn");
  const outcome = ui.replay ? (ui.replayPly === ui.replay.positions.length - 1 ? ui.replay.result : null)
    : ui.view.outcome_text;
  turn.className = "turn";
  $("result").textContent = outcome ? "Game over: " + outcome : "";
  if (outcome) { turn.textContent = "game over"; return; }
  const colour = v.to_move;
  turn.classList.add("p" + colour);
  let who = "";
  if (!ui.replay) who = ui.view.sides[colour] === null ? " (you)" : " (" + ui.view.sides[colour] + ")";
  turn.textContent = v.symbols[colour] + " to move" + who;
  turn.dataset.toMove = String(colour);
}

function drawThinking(view) {
  // Who thinks, for how long so far. An agent's first move of the game includes its start-up
  // (built and prepared in a worker, compiling included), which is said: the move list then
  // gives the agent's own thinking, which its clock is charged, and the start-up beside it.
  const box = $("thinking");
  if (!view || view.thinking === null || view.thinking === undefined) { box.textContent = ""; box.title = ""; return; }
  const spec = view.sides[view.thinking];
  const first = !view.moves.some((m) => m.mover === view.thinking && m.seconds !== null);
  const counter = view.thinking_for !== undefined ? " … " + view.thinking_for.toFixed(1) + " s" : " …";
  box.textContent = view.position.symbols[view.thinking] + " (" + spec + ") is " +
    (first ? "starting and thinking" + counter + " (first move: starting it, compiling included, can take a while)"
      : "thinking" + counter);
  box.title = first ? "its start-up is not charged to its thinking time or its clock" : "";
}

function drawMoves(focus) {
  // the game's moves, each with its review's verdict where it has one; the list shows the move
  // ``focus`` (an index), else the replay's current move, else the last
  const list = $("moves");
  list.innerHTML = "";
  const moves = ui.replay
    ? ui.replay.moves.map((m, i) => ({ ply: i + 1, move: m, mover: i % 2, seconds: ui.replay.seconds[i] }))
    : ui.view.moves;
  const symbols = ui.replay ? ui.replay.positions[0].symbols : ui.view.position.symbols;
  let previous = null;
  for (const [i, m] of moves.entries()) {
    const li = document.createElement("li");
    li.className = "p" + m.mover + (ui.replay && m.ply === ui.replayPly ? " current" : "");
    li.dataset.move = m.move;
    let text = symbols[m.mover] + " " + m.move;
    if (m.seconds !== null && m.seconds !== undefined) {
      text += "  (" + m.seconds.toFixed(2) + " s" +
        (m.start_seconds >= 0.5 ? ", +" + m.start_seconds.toFixed(1) + " s starting" : "") + ")";
      li.title = m.start_seconds >= 0.5
        ? m.seconds.toFixed(2) + " s: the agent's own thinking (what its clock is charged); " +
          m.start_seconds.toFixed(1) + " s more went to starting it (compiling included) and passing its move"
        : "";
    }
    li.textContent = text;
    const said = m.decision;
    if (said && said.value !== undefined) {
      // short in the list, in words in its tooltip
      const value = (said.value > 0 ? "+" : "") + said.value.toFixed(2);
      li.appendChild(saidSpan("  v=" + value, "value " + value + " for " + symbols[m.mover] +
        " (the mover's, from its own judgement: +1 a win, −1 a loss)"));
    }
    if (said && said.info && said.info.depth) {
      li.appendChild(saidSpan(" d" + said.info.depth, "searched to depth " + said.info.depth + " (plies ahead)"));
    }
    const mark = reviewMark(i);
    if (mark) {
      li.dataset.verdict = mark.verdict;
      drawVerdict(li, mark, previous);
    }
    previous = mark;
    if (ui.replay) li.onclick = () => { ui.replayPly = m.ply; drawReplay(); };
    list.appendChild(li);
  }
  const shown = focus !== undefined ? focus : ui.replay ? ui.replayPly - 1 : moves.length - 1;
  scrollToMove(list, list.children[Math.max(0, shown)]);
}

function saidSpan(text, title) {
  // an abbreviation of the move list, spelled out in its tooltip
  const span = document.createElement("span");
  span.className = "said";
  span.textContent = text;
  span.title = title;
  return span;
}

function scrollToMove(list, li) {
  // The list scrolled to show ``li`` near its middle, its top on the top of a whole move (a move
  // cut in half at the top looked hidden under what is above the list).
  if (!li) { list.scrollTop = 0; return; }
  const wanted = li.offsetTop + li.offsetHeight - list.clientHeight / 2;
  const first = [...list.children].find((item) => item.offsetTop >= wanted);
  list.scrollTop = first ? first.offsetTop - list.children[0].offsetTop : wanted;
}

// --- the keyboard: every target a click plays on is reached by Tab, and Enter or Space plays it --

function playable(el, action, label) {
  // ``el`` does ``action`` on a click, and on Enter or Space once Tab reached it
  el.tabIndex = 0;
  el.setAttribute("role", "button");
  if (label) el.setAttribute("aria-label", label);
  el.onclick = action;
  el.onkeydown = (e) => {
    if (e.key === "Enter" || e.key === " ") { e.preventDefault(); action(); }
    if (e.key === "Escape" && ui.selected) { ui.selected = null; draw(); }  // a choice begun, undone
  };
}

function keyed(el, key) {
  // an element of the board focus can come back to after a redraw (by script; Tab passes it by)
  el.dataset.key = key;
  el.tabIndex = -1;
}

function refocus(board, key) {
  // the element of ``key`` focused again; where it is gone (a Nim object taken), the board
  const again = key && [...board.querySelectorAll("[data-key]")].find((el) => el.dataset.key === key);
  if (again) again.focus({ preventScroll: true });
  else { board.tabIndex = -1; board.focus({ preventScroll: true }); }
}

function canClick(v) {
  return !ui.replay && ui.view && ui.view.outcome === null && ui.view.thinking === null &&
    ui.view.sides[v.to_move] === null;
}

function cellDiv(x, y, value, symbols) {
  const cell = document.createElement("div");
  cell.className = "cell" + (value >= 0 ? " v" + value : "");
  cell.dataset.x = x; cell.dataset.y = y;
  cell.dataset.v = value >= 0 ? symbols[value] : ".";
  if (value >= 0) {
    const mark = document.createElement("span");  // its own box: the badges keep clear of it
    mark.className = "mark";
    mark.textContent = symbols[value];
    cell.appendChild(mark);
  }
  cell.setAttribute("aria-label", LETTERS[x] + (y + 1) + (value >= 0 ? " " + symbols[value] : ""));
  keyed(cell, x + "," + y);
  return cell;
}

function markCell(cell, marks, x, y) {
  const at = (p) => p && p[0] === x && p[1] === y;
  if (at(marks.to)) cell.classList.add("last");
  if (at(marks.from)) cell.classList.add("from");
  if ((marks.lines || []).some((p) => p[0] === x && p[1] === y)) cell.classList.add("line");
}

function shownPosition() {
  // the position on the board: the replay's current one, or the live game's
  if (ui.replay) return ui.replay.positions[ui.replayPly];
  return ui.view ? ui.view.position : null;
}

function exactOf(move) {
  const a = ui.analysis, shown = shownPosition();
  if (!a || !a.exact || !shown || a.position !== shown.text) return null;
  return a.exact.moves.find((m) => m.move === move) || null;
}

function valueLabel(m) {
  if (m.score !== null && m.score !== undefined) return (m.score > 0 ? "+" : "") + m.score;
  const letter = { win: "W", draw: "D", loss: "L" }[m.value];
  return m.depth !== null && m.depth !== undefined && m.value !== "draw" ? letter + m.depth : letter;
}

function drawQuixo(board, v) {
  const n = v.size;
  const grid = document.createElement("div");
  grid.className = "grid";
  grid.style.gridTemplateColumns = `repeat(${n}, auto)`;
  grid.style.setProperty("--n", n);
  const click = canClick(v);
  const sources = new Map();
  for (const move of v.legal) {
    const src = move.slice(0, 2);
    if (!sources.has(src)) sources.set(src, []);
    sources.get(src).push(move);
  }
  const ends = ui.selected ? sources.get(ui.selected) || [] : [];
  for (let y = 0; y < n; y++) {
    for (let x = 0; x < n; x++) {
      const name = LETTERS[x] + (y + 1);
      const cell = cellDiv(x, y, v.cells[y][x], v.symbols);
      markCell(cell, v.marks, x, y);
      if (click) {
        if (sources.has(name)) cell.classList.add("clickable");
        if (ui.selected === name) cell.classList.add("selected");
        const end = ends.find((m) => m.slice(2) === name);
        if (end) {
          cell.classList.add("end");
          const dir = document.createElement("span");
          dir.className = "dir";
          dir.textContent = entryArrow(ui.selected, x, y);
          dir.setAttribute("aria-hidden", "true");
          cell.appendChild(dir);
          cell.setAttribute("aria-label", LETTERS[x] + (y + 1) + ": push in here, the line sliding " +
            { "↓": "down", "↑": "up", "→": "right", "←": "left" }[dir.textContent]);
          const e = exactOf(end);
          if (e) { const h = document.createElement("span"); h.className = "hint"; h.textContent = valueLabel(e); cell.appendChild(h); }
        }
        const action = () => quixoClick(name, sources, end);
        // Tab goes through the cubes that can be taken, then, once one is, through its ends
        const reachable = ui.selected ? Boolean(end) || ui.selected === name : sources.has(name);
        if (reachable) playable(cell, action); else cell.onclick = action;
      }
      grid.appendChild(cell);
    }
  }
  board.appendChild(withCoordinates(grid, n, n, ""));
}

function withCoordinates(grid, cols, rows, size) {
  // The grid with its files (a, b, ...) above it and its ranks (1, 2, ...) to its left, as the
  // notation of Quixo and Tic-Tac-Toe names cells: a1 at the top left, rows counted downward.
  const frame = document.createElement("div");
  frame.className = "coords " + size;
  frame.style.setProperty("--n", Math.max(cols, rows));
  frame.appendChild(document.createElement("span"));  // the corner
  const files = document.createElement("div");
  files.className = "files";
  files.style.gridTemplateColumns = `repeat(${cols}, var(--cell-size))`;
  for (let x = 0; x < cols; x++) {
    const file = document.createElement("span");
    file.textContent = LETTERS[x];
    file.dataset.file = x;
    files.appendChild(file);
  }
  const ranks = document.createElement("div");
  ranks.className = "ranks";
  ranks.style.gridTemplateRows = `repeat(${rows}, var(--cell-size))`;
  for (let y = 0; y < rows; y++) {
    const rank = document.createElement("span");
    rank.textContent = String(y + 1);
    rank.dataset.rank = y;
    ranks.appendChild(rank);
  }
  frame.append(files, ranks, grid);
  return frame;
}

function entryArrow(source, x, y) {
  // The way the cube moves as it goes in at (x, y): the line slides from there toward the source.
  const sx = LETTERS.indexOf(source[0]), sy = parseInt(source.slice(1), 10) - 1;
  if (sx === x) return y < sy ? "↓" : "↑";
  return x < sx ? "→" : "←";
}

function quixoClick(name, sources, end) {
  if (end) { playMove(end); return; }
  if (ui.selected === name) { ui.selected = null; draw(); return; }
  if (sources.has(name)) { ui.selected = name; say(""); draw(); return; }
  ui.selected = null;
  draw();
  say("you cannot take the cube at " + name + ": take a blank or your own cube on the border");
}

function drawTicTacToe(board, v) {
  const grid = document.createElement("div");
  grid.className = "grid small";
  grid.style.gridTemplateColumns = `repeat(${v.size}, auto)`;
  grid.style.setProperty("--n", v.size);
  const click = canClick(v);
  for (let y = 0; y < v.size; y++) {
    for (let x = 0; x < v.size; x++) {
      const cell = cellDiv(x, y, v.cells[y][x], v.symbols);
      markCell(cell, v.marks, x, y);
      const move = LETTERS[x] + (y + 1);
      if (click) {
        const e = exactOf(move);
        if (e) { const h = document.createElement("span"); h.className = "hint"; h.textContent = valueLabel(e); cell.appendChild(h); }
        if (v.legal.includes(move)) { cell.classList.add("clickable"); playable(cell, () => playMove(move)); }
        else cell.onclick = () => playMove(move);  // the server says why not
      }
      grid.appendChild(cell);
    }
  }
  board.appendChild(withCoordinates(grid, v.size, v.size, "small"));
}

function drawConnect4(board, v) {
  const wrap = document.createElement("div");
  wrap.className = "c4";
  wrap.style.setProperty("--cols", v.width);
  const click = canClick(v);
  for (let c = 0; c < v.width; c++) {
    const col = document.createElement("div");
    col.className = "col";
    col.dataset.col = c + 1;
    keyed(col, "col " + (c + 1));
    const head = document.createElement("div");
    head.className = "head";
    head.textContent = String(c + 1);
    col.appendChild(head);
    for (let r = 0; r < v.height; r++) {
      const value = v.board[r][c];
      const disc = document.createElement("div");
      disc.className = "disc" + (value >= 0 ? " v" + value : "");
      disc.dataset.x = c; disc.dataset.y = r;
      disc.dataset.v = value >= 0 ? v.symbols[value] : ".";
      disc.textContent = value >= 0 ? v.symbols[value] : "";
      const at = (p) => p && p[0] === c && p[1] === r;
      if (at(v.marks.to)) disc.classList.add("last");
      if ((v.marks.lines || []).some((p) => at(p))) disc.classList.add("line");
      col.appendChild(disc);
    }
    const score = document.createElement("div");
    score.className = "score";
    const e = exactOf(String(c + 1));
    if (e) { score.textContent = valueLabel(e); score.classList.add("val-" + e.value); }
    col.appendChild(score);
    const drop = () => playMove(String(c + 1));
    if (click && v.legal.includes(String(c + 1))) playable(col, drop, "column " + (c + 1));
    else if (click) col.onclick = drop;  // a full column: the server says so
    wrap.appendChild(col);
  }
  board.appendChild(wrap);
}

function drawNim(board, v) {
  // A click on an object takes it and every object after it to the end of its pile; only the
  // objects whose take is legal (within k) can be clicked, and hovering one marks what it takes.
  const wrap = document.createElement("div");
  wrap.className = "nim" + (Math.max(0, ...v.piles) > 20 ? " dense" : "");
  const click = canClick(v);
  v.piles.forEach((count, p) => {
    const row = document.createElement("div");
    row.className = "pile" + (v.marks.pile === p ? " last" : "");
    row.dataset.pile = p + 1;
    row.dataset.count = count;
    const label = document.createElement("span");
    label.className = "label";
    label.textContent = "pile " + (p + 1) + ": " + count;
    row.appendChild(label);
    const tokens = document.createElement("span");
    tokens.className = "tokens";
    for (let i = 0; i < count; i++) {
      const token = document.createElement("span");
      token.className = "token";
      token.dataset.i = i;
      keyed(token, "pile " + (p + 1) + " object " + i);
      const move = (p + 1) + ":" + (count - i);
      if (click && v.legal.includes(move)) {
        token.classList.add("takable");
        token.title = "take " + (count - i);
        playable(token, () => playMove(move), "take " + (count - i) + " from pile " + (p + 1));
      }
      tokens.appendChild(token);
    }
    row.appendChild(tokens);
    wrap.appendChild(row);
  });
  board.appendChild(wrap);
}

// --- any other game with a grid: a move is made by clicking the cells it names, in order ----

function gridPath() { return ui.selected ? ui.selected.split(";") : []; }

function gridChoices(v, path) {
  // the legal moves whose cells begin with the clicked ones, each with its cells as "x,y" keys
  return v.legal.map((move) => ({ move, cells: v.move_cells[move].map((c) => c[0] + "," + c[1]) }))
    .filter((m) => path.every((key, i) => m.cells[i] === key));
}

function drawGrid(board, v) {
  const rows = v.grid.length, cols = v.grid[0].length;
  const grid = document.createElement("div");
  grid.className = "grid";
  grid.style.gridTemplateColumns = `repeat(${cols}, auto)`;
  grid.style.setProperty("--n", Math.max(rows, cols));
  const click = canClick(v), path = gridPath();
  const choices = click ? gridChoices(v, path) : [];
  for (let y = 0; y < rows; y++) {
    for (let x = 0; x < cols; x++) {
      const key = x + "," + y;
      const cell = cellDiv(x, y, v.grid[y][x], v.symbols);
      markCell(cell, v.marks, x, y);
      if (click) {
        const next = choices.filter((m) => m.cells[path.length] === key);
        if (path.includes(key)) cell.classList.add("selected");
        const done = next.filter((m) => m.cells.length === path.length + 1);
        if (next.length) cell.classList.add(path.length && done.length ? "end" : "clickable");
        if (done.length === 1) {
          const e = exactOf(done[0].move);
          if (e) { const h = document.createElement("span"); h.className = "hint"; h.textContent = valueLabel(e); cell.appendChild(h); }
        }
        const action = () => gridClick(key, path, next);
        if (next.length || path.includes(key)) playable(cell, action); else cell.onclick = action;
      }
      grid.appendChild(cell);
    }
  }
  board.appendChild(grid);
  if (click) drawChoices(board, choices);
}

function gridClick(key, path, next) {
  // a cell that ends exactly one move plays it; one that begins or continues moves selects it
  if (path[path.length - 1] === key) { ui.selected = path.slice(0, -1).join(";") || null; draw(); return; }
  if (!next.length) {
    ui.selected = null;
    draw();
    say("no move " + (path.length ? "goes on" : "starts") + " at " + LETTERS[+key.split(",")[0]] +
      (+key.split(",")[1] + 1) + ": the cells that can be clicked are outlined");
    return;
  }
  const longer = path.length + 1;
  if (next.length === 1 && next[0].cells.length === longer) { playMove(next[0].move); return; }
  ui.selected = [...path, key].join(";");
  say("");
  draw();
}

function drawChoices(board, choices) {
  // the moves that the clicked cells leave open, as buttons (a move can always be played here)
  const wrap = document.createElement("div");
  wrap.className = "legal-moves";
  for (const m of choices) {
    const b = document.createElement("button");
    b.textContent = m.move;
    b.onclick = () => playMove(m.move);
    wrap.appendChild(b);
  }
  board.appendChild(wrap);
}

function drawList(board, v) {
  const wrap = document.createElement("div");
  wrap.className = "legal-moves";
  const pre = document.createElement("pre");
  pre.textContent = v.text;
  wrap.appendChild(pre);
  if (canClick(v)) for (const move of v.legal) {
    const b = document.createElement("button");
    b.textContent = move;
    b.onclick = () => playMove(move);
    wrap.appendChild(b);
  }
  board.appendChild(wrap);
}

// --- analysis ---------------------------------------------------------------------------

function clearAnalysis() { if (!$("hints").checked) { $("analysis").innerHTML = ""; ui.analysis = null; } }

async function analyse() {
  // the position on the board, a replay's included
  const shown = shownPosition();
  if (!shown) return;
  const text = shown.text, began = performance.now(), budget = ui.meta.analysis_seconds;
  const counting = () => {
    // seconds so far; past the budget, why: a game's first analysis prepares its solver
    const seconds = (performance.now() - began) / 1000;
    $("analysis").textContent = "analysing… " + seconds.toFixed(1) + " s" + (seconds > budget + 1
      ? " (a game's first analysis starts its solver, compiling included: it takes longer than the " + budget + " s budget)"
      : "");
  };
  counting();
  const ticking = setInterval(() => { if (shownPosition() && shownPosition().text === text) counting(); }, 100);
  try {
    const a = await api("POST", "/api/analysis", { game: shown.game, position: text });
    const now = shownPosition();
    if (!now || now.text !== text) return;
    ui.analysis = a;
    clearInterval(ticking);
    drawAnalysis(a);
    draw();
  } catch (err) { clearInterval(ticking); $("analysis").textContent = err.message; }
  finally { clearInterval(ticking); }
}

function drawAnalysis(a) {
  const box = $("analysis");
  box.innerHTML = "";
  const head = document.createElement("p");
  if (a.exact) {
    head.innerHTML = "";
    const within = a.exact.depth && a.exact.value !== "draw" ? " in " + counted(a.exact.depth, "ply", "plies") : "";
    head.textContent = "Exact, from " + a.exact.title + ": the side to move " +
      { win: "wins", draw: "draws", loss: "loses" }[a.exact.value] +
      (a.exact.score !== null ? " (score " + a.exact.score + ")" : within);
    head.id = "exact-head";
    box.appendChild(head);
    const table = document.createElement("table");
    table.id = "analysis-table";
    table.innerHTML = "<tr><th>move</th><th>value</th><th></th></tr>";
    for (const m of a.exact.moves) {
      const tr = document.createElement("tr");
      tr.dataset.move = m.move;
      tr.dataset.value = m.value;
      if (m.score !== null) tr.dataset.score = m.score;
      if (m.depth !== null) tr.dataset.depth = m.depth;
      const words = m.value + (m.score !== null ? " " + (m.score > 0 ? "+" : "") + m.score
        : m.depth !== null && m.value !== "draw" ? " in " + m.depth : "");
      tr.innerHTML = `<td class="${m.best ? "best" : ""}">${m.move}</td><td class="val-${m.value}">${words}</td><td>${m.best ? "best" : ""}</td>`;
      table.appendChild(tr);
    }
    box.appendChild(table);
  } else if (a.why) {
    head.textContent = a.why;
    box.appendChild(head);
  }
  const shown = shownPosition();
  if (a.search) box.appendChild(decisionBox(a.search, shown.symbols[shown.to_move]));
  if (a.search_error) { const p = document.createElement("p"); p.textContent = a.search_error; box.appendChild(p); }
}

function decisionBox(d, side, id) {
  // Any agent's Decision, shown the same way: value, search info, and policy where it has one.
  // ``side``: the symbol of the side that was to move when the agent decided, whose value it is
  // (as the proof's words say: "a proven loss for O").
  const div = document.createElement("div");
  div.id = id || "search-info";
  const lines = [d.agent ? d.agent + ": move " + d.move : "move " + d.move];
  if (d.value !== undefined) lines.push("value " + d.value.toFixed(3) + " for " + side);
  if (d.info) {
    if (d.evaluation) lines.push(d.evaluation);
    const nodes = d.info.nodes === null || d.info.nodes === undefined ? "" : d.info.nodes + " nodes, ";  // null: not said
    const depth = d.info.depth ? "depth " + d.info.depth + ", " : "";  // 0: an engine that did not say
    lines.push(depth + nodes + Number(d.info.seconds).toFixed(2) + " s" +
      (d.info.engine ? " (" + d.info.engine + ")" : ""));
    if (d.info.pv && d.info.pv.length) lines.push("line: " + d.info.pv.join(" "));
  }
  for (const line of lines) { const p = document.createElement("p"); p.textContent = line; div.appendChild(p); }
  if (d.policy_moves) {
    const table = document.createElement("table");
    table.className = "policy";
    for (const [move, p] of d.policy_moves.slice(0, 12)) {
      const tr = document.createElement("tr");
      tr.dataset.move = move;
      tr.dataset.share = p;
      tr.innerHTML = `<td>${move}</td><td><span class="bar" style="width:${Math.round(p * 120)}px"></span> ${(100 * p).toFixed(1)}%</td>`;
      table.appendChild(tr);
    }
    const cap = document.createElement("p");
    cap.textContent = "policy (largest shares of the moves)";
    div.appendChild(cap);
    div.appendChild(table);
  }
  return div;
}

// --- review: every move of the game on the board judged by the server, as boardlab review does --

const VERDICTS = {
  // how the server's verdicts are shown: a symbol and the verdict's words, on its class's colour
  "best": { symbol: "★", cls: "v-best" },
  "keeps the value": { symbol: "✓", cls: "v-kept" },
  "throws the win": { symbol: "??", cls: "v-threw" },
  "loses the draw": { symbol: "?", cls: "v-lost" },
  "not judged": { symbol: "–", cls: "v-unjudged" },
};
const REVIEW_TRIES = 5;  // how often a move is asked while every worker stays busy (the server's 429)

function reviewSource() {
  // the game on the board as a review reads it: a key naming the game, its spec, the position
  // its moves start from, its moves and how many of them were an arena's opening
  if (ui.replay) {
    return { key: "replay " + ui.replay.tournament + "/" + ui.replay.index, game: ui.replay.game,
      start: "", moves: ui.replay.moves, opening: ui.replay.opening };
  }
  if (!ui.view) return null;
  return { key: "game " + ui.view.id, game: ui.view.game, start: ui.view.start,
    moves: ui.view.moves.map((m) => m.move), opening: 0 };
}

function reviewMark(index) {
  // The review's judgement of move ``index`` of the game on the board, where the review is of
  // this game and reviewed the same moves up to this one: a move's verdict depends on them alone,
  // so marks stay on the moves an undo or a new move leaves as they were.
  const r = ui.review, src = reviewSource();
  if (!r || !src || r.key !== src.key || !r.marks[index]) return null;
  for (let i = 0; i <= index; i++) if (r.moves[i] !== src.moves[i]) return null;
  return r.marks[index];
}

function drawVerdict(li, mark, previous) {
  // a move's verdict (symbol and words), the best moves for a mistake, and why a move was not
  // judged (said once for a run of moves not judged for the same reason)
  const shown = VERDICTS[mark.verdict] || { symbol: "·", cls: "v-unjudged" };
  const span = document.createElement("span");
  span.className = "verdict " + shown.cls;
  span.textContent = shown.symbol + " " + mark.verdict;
  span.title = mark.value === null ? "not judged: " + mark.why
    : "the mover's value: " + mark.value + "; after the move: " + mark.played +
      (mark.plies !== null && mark.played !== "draw" ? " in " + counted(mark.plies, "ply", "plies") : "");
  li.appendChild(span);
  const extra = document.createElement("span");
  if (mark.verdict === "throws the win" || mark.verdict === "loses the draw") {
    extra.className = "instead";
    extra.textContent = "best: " + mark.best.join(" ");
  } else if (mark.value === null && !(previous && previous.value === null && previous.why === mark.why)) {
    extra.className = "why";
    extra.textContent = mark.why;
  } else return;
  li.appendChild(extra);
}

async function reviewOne(body, signal) {
  // one move's review; asked again a few times while every worker is busy
  for (let attempt = 1; ; attempt++) {
    try { return await api("POST", "/api/review", body, signal); }
    catch (err) {
      if (err.status !== 429 || attempt >= REVIEW_TRIES) throw err;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

async function review() {
  // Judges the moves of the game on the board one at a time, the last first: once a position
  // overruns the budget, the server passes over the earlier ones (as hard or harder) at once.
  // Marks still true from an earlier review of the game are kept, not asked again.
  const src = reviewSource();
  if (!src || !src.moves.length || (ui.review && ui.review.running)) return;
  const known = src.moves.map((_, i) => reviewMark(i));
  const r = { ...src, marks: known, number: 0, running: true, stopped: false, error: "",
    abort: new AbortController() };
  ui.review = r;
  const body = { game: src.game, position: src.start, moves: src.moves.join(","), opening: src.opening };
  for (let number = src.moves.length; number >= 1; number--) {
    if (r.stopped || ui.review !== r) break;
    if (reviewSource() === null || reviewSource().key !== r.key) { r.stopped = true; break; }  // another game shown
    r.number = number;
    if (!r.marks[number - 1]) {
      drawReview();
      try { r.marks[number - 1] = await reviewOne({ ...body, number }, r.abort.signal); }
      catch (err) {
        if (!r.stopped) r.error = err.message;
        break;
      }
    }
    if (ui.review === r && (ui.view || ui.replay)) drawMoves(number - 1);
  }
  r.running = false;
  if (ui.review === r && (ui.view || ui.replay)) { drawMoves(); drawReview(); }
}

function stopReview() {
  const r = ui.review;
  if (!r || !r.running) return;
  r.stopped = true;
  r.abort.abort();
}

function drawReview() {
  // the review's progress, and each side's summary over the moves on the board that carry marks
  const r = ui.review, src = reviewSource();
  const ours = r && src && r.key === src.key;
  $("review").disabled = !src || !src.moves.length || Boolean(r && r.running);
  $("review-stop").hidden = !(r && r.running);
  const status = $("review-status"), summary = $("review-summary");
  if (!ours) { status.textContent = ""; summary.hidden = true; return; }
  const marks = src.moves.map((_, i) => reviewMark(i));
  const marked = marks.filter((m) => m).length, total = src.moves.length;
  if (r.running) status.textContent = "reviewing move " + r.number + " of " + total;
  else if (r.error) status.textContent = "review stopped: " + r.error;
  else if (marked === total) status.textContent = reviewedText(marks);
  else status.textContent = (r.stopped ? "stopped: " : "") + marked + " of " + counted(total, "move") + " reviewed";
  drawSummary(summary, marks, src);
}

function reviewedText(marks) {
  // A whole review in words: how many moves were judged, where not all were, and why none was
  // (the first reason: no exact judge for the game or its positions within the budget).
  const judged = marks.filter((m) => m.value !== null).length, total = marks.length;
  if (judged === total) return counted(total, "move") + " reviewed";
  if (judged === 0) return "0 of " + counted(total, "move") + " judged: " + marks[0].why;
  return counted(total, "move") + " reviewed, " + judged + " judged (each other move says why not)";
}

function drawSummary(table, marks, src) {
  // each side's judged moves, as boardlab review sums them: the server's tally of each move added up
  const symbols = (ui.replay ? ui.replay.positions[0] : ui.view.position).symbols;
  const sums = [0, 1].map(() => ({ all: 0, moves: 0, kept: 0, exact: 0, won: 0, thrown: 0, drawn: 0, lost: 0 }));
  for (const m of marks) {
    if (!m) continue;
    const sum = sums[m.mover];
    sum.all++;
    if (m.tally) for (const k of ["moves", "kept", "exact", "won", "thrown", "drawn", "lost"]) sum[k] += m.tally[k];
  }
  table.innerHTML = "<tr><th>side</th><th>judged</th><th>kept the value</th><th>best</th><th>wins thrown</th>" +
    "<th>draws lost</th></tr>";
  sums.forEach((s, side) => {
    const tr = document.createElement("tr");
    tr.dataset.side = side;
    const cells = [symbols[side], s.moves + " of " + s.all, s.kept, s.exact, s.thrown + " of " + s.won,
      s.lost + " of " + s.drawn];
    for (const text of cells) { const td = document.createElement("td"); td.textContent = text; tr.appendChild(td); }
    table.appendChild(tr);
  });
  table.hidden = !marks.some((m) => m && m.value !== null);  // no judged move: nothing to sum
}

// --- replay ---------------------------------------------------------------------------------

async function loadTournaments(wanted) {
  // Lists the store's tournaments and shows the one named by ``wanted`` (an id or a name, from
  // the URL; null: the first); what could not be shown, as a sentence, or "".
  if (!ui.meta.replay) return "";
  $("replay-box").hidden = false;
  const select = $("tournaments");
  let tournaments;
  try { ({ tournaments } = await api("GET", "/api/replay")); }
  catch (err) { return sentence(err.message); }
  select.innerHTML = "";
  for (const t of tournaments) {
    const option = new Option(t.label, t.id);
    option.title = t.label;  // the whole label, where the list is too narrow for it
    select.add(option);
  }
  select.onchange = () => loadReplayGames(select.value).then(updateUrl).catch((err) => say(err.message));
  if (wanted !== null) {
    try { await loadReplayGames(wanted); return ""; }
    catch (err) {
      const note = "tournament=" + wanted + ": " + sentence(err.message);
      if (!tournaments.length) return note;
      await loadReplayGames(tournaments[0].id).catch(() => {});
      return note + " Showing " + tournaments[0].name + ".";
    }
  }
  if (tournaments.length) await loadReplayGames(tournaments[0].id).catch((err) => say(err.message));
  return "";
}

async function loadReplayGames(tournament) {
  // Shows a tournament's standings and games (``tournament``: its id or name); the server's
  // refusal (no such tournament, a name several share) is thrown.
  const { tournament: shown, games, standings } = await api("GET", "/api/replay/" + encodeURIComponent(tournament));
  ui.tournament = shown.id;
  $("tournaments").value = shown.id;
  $("tournament-info").textContent = shown.label;  // whole, where the list is too narrow for it
  const list = $("replay-games");
  list.innerHTML = "";
  drawStandings(standings);
  for (const g of games) {
    const li = document.createElement("li");
    li.textContent = `#${g.index} ${g.first} vs ${g.second}: ${g.result}, ${counted(g.plies, "ply", "plies")}`;
    li.dataset.index = g.index;
    li.title = li.textContent;  // whole, where the line is cut
    li.onclick = () => openReplay(shown.id, g.index).then((refused) => { if (refused) say(refused); });
    list.appendChild(li);
  }
  // the list shows eight games: where it holds more, it says so (a scrollbar alone may be hidden)
  const more = list.scrollHeight > list.clientHeight + 1;
  $("replay-count").textContent = counted(games.length, "game") + (more ? " (scroll the list for more)" : "");
}

function drawStandings(rows) {
  // the tournament's table: rank, player, W-D-L, score and Elo with its 95 % interval
  const table = $("standings");
  table.innerHTML = "<tr><th>#</th><th>player</th><th>W-D-L</th><th>score</th><th>Elo</th></tr>";
  const shown = (x, digits) => (x === null ? "–" : x.toFixed(digits));
  for (const r of rows) {
    const tr = document.createElement("tr");
    tr.dataset.player = r.player;
    // the interval kept whole (no break inside it), on a line of its own where the column is narrow
    const elo = r.elo === null ? "–" : shown(r.elo, 0) + " [" + shown(r.elo_low, 0) + ",\u00a0" + shown(r.elo_high, 0) + "]";
    for (const text of [r.rank, r.player, r.wins + "-" + r.draws + "-" + r.losses, shown(r.score, 3), elo]) {
      const td = document.createElement("td");
      td.textContent = text;
      tr.appendChild(td);
    }
    // a spec breaks after its colon or a comma first (alphabeta: / depth=3), anywhere only if it must
    tr.cells[1].replaceChildren(...String(r.player).split(/(?<=[:,])/).flatMap((part) => [part, document.createElement("wbr")]));
    table.appendChild(tr);
  }
  table.hidden = rows.length === 0;
}

async function openReplay(tournament, index, ply = 0) {
  // Shows a stored game at its position after ``ply`` moves; the server's refusal as a sentence
  // (for the caller to say, once), or "".
  try {
    ui.replay = await api("GET", "/api/replay/" + encodeURIComponent(tournament) + "/" + index);
    if ($("game-select").value !== ui.replay.game.split(":")[0]) setGame(ui.replay.game);  // New game: this one
    noteSettings();
    ui.replayPly = Math.max(0, Math.min(ui.replay.moves.length, ply));
    $("replay-controls").hidden = false;
    $("analysis").innerHTML = "";
    $("thinking").textContent = "";
    say("replay: " + ui.replay.players[0] + " (X) vs " + ui.replay.players[1] + " (O)", "info");
    drawReplay();
    return "";
  } catch (err) { return sentence(err.message); }
}

function drawReplay() {
  $("replay-ply").textContent = ui.replayPly + " / " + ui.replay.moves.length;
  draw();
  updateUrl();
  if ($("hints").checked) analyse(); else clearAnalysis();
}

async function openUrlReplay(params) {
  // The stored game the URL names (``index``, of its ``tournament``) at its ``ply``; what could
  // not be shown, as a sentence, or "".
  const index = params.get("index");
  if (index === null) return "";
  if (!ui.meta.replay) return "index=" + index + ": this server has no arena store (serve --db FILE).";
  if (!ui.tournament) return "index=" + index + ": no tournament to replay it from.";
  if (!/^[0-9]+$/.test(index)) return "index must be a whole number ≥ 0, got " + index + ".";
  const plyText = params.get("ply");
  const ply = plyText === null ? 0 : Number(plyText);
  const refused = await openReplay(ui.tournament, index, Number.isInteger(ply) && ply >= 0 ? ply : 0);
  if (refused) return "index=" + index + ": " + refused;
  if (plyText !== null && !(Number.isInteger(ply) && ply >= 0 && ply <= ui.replay.moves.length)) {
    return "ply=" + plyText + ": not a ply of this game (0 to " + ui.replay.moves.length + "); showing ply " +
      ui.replayPly + ".";
  }
  return "";
}

function stepReplay(to) {
  if (!ui.replay) return;
  ui.replayPly = Math.max(0, Math.min(ui.replay.moves.length, to));
  drawReplay();
}

// --- start ------------------------------------------------------------------------------------

function faultyOption(message) {
  // the option a refusal of a game's or an agent's spec names ("depth must be at least 0",
  // "unknown option 'bogus'"), or null
  const named = /^[\w-]+: (\w+) must /.exec(message) || /unknown option '(\w+)'/.exec(message);
  return named ? named[1] : null;
}

function mendRefused(refusal, extra) {
  // The one change to the panel (or to ``extra``, the address's start and moves) that answers
  // the server's refusal of a new game, and what it was, in words; null where none does.
  const field = refusal.field, name = $("game-select").value;
  if (field === "time_control" && $("clock").value.trim()) {
    return [() => { $("clock").value = ""; thinkFollowsClock(); }, "Playing without a clock."];
  }
  if ((field === "moves" || field === "position") && (extra.moves || extra.position)) {
    return [() => { extra.moves = ""; extra.position = ""; }, "The game starts from the beginning."];
  }
  if (field === "game" && gameSpec() !== name) {
    const key = faultyOption(refusal.message), input = key && $("opt-" + key);
    if (input && input.value.trim() !== input.dataset.default) {
      return [() => { input.value = input.dataset.default; },
        "Playing " + gameMeta(name).title + " with its default " + key + " (" + input.dataset.default + ")."];
    }
    return [() => fillOptions({}), "Playing " + gameMeta(name).title + " with its default options."];
  }
  const side = { "sides.0": 0, "sides.1": 1 }[field];
  if (side === undefined) return null;
  const symbol = ["X", "O"][side], agent = $("side-" + side).value, box = $("side-" + side + "-opts");
  const options = box.value.trim() ? box.value.trim().split(",") : [];
  const key = faultyOption(refusal.message);
  const kept = key ? options.filter((o) => o.split("=")[0].trim() !== key) : [];
  if (key && kept.length < options.length) {
    return [() => { box.value = kept.join(","); }, symbol + "'s " + agent + " plays with its default " + key + "."];
  }
  if (options.length) return [() => { box.value = ""; }, symbol + "'s " + agent + " plays with its default options."];
  if ((sideSpec(side) || "person") !== DEFAULT_SIDES[side]) {
    return [() => setSide(side, DEFAULT_SIDES[side]), symbol + " is played by " + DEFAULT_SIDES[side] + "."];
  }
  return null;
}

async function fallBack(told, refusal, extra) {
  // The server refused the URL's game: the setting it named is mended (the clock dropped, the
  // moves, the option at fault set to its default, an agent's option or the agent itself) and
  // the game asked again, until one starts or nothing is left to mend; the server's reasons and
  // each change stay shown.
  for (let tries = 0; tries < 12; tries++) {
    const mend = mendRefused(refusal, extra);
    if (!mend) return;
    mend[0]();
    told.push(mend[1]);
    const refused = await newGame({ ...extra }, told);
    if (!refused) return;
    if (!told.includes(refused)) told.push(refused);
    refusal = ui.refusal;
  }
}

function thinkFollowsClock() {
  // On a clock the agents share theirs out: the seconds per move say nothing then. Called on
  // typing in the clock box and wherever this script sets it (which fires no input event).
  $("think").disabled = $("clock").value.trim() !== "";
}

function boundThink() {
  // Only thinking times the server takes (--max-think) are offered, its bound among them.
  const most = ui.meta.max_think, select = $("think");
  const over = [...select.options].filter((o) => parseFloat(o.value) > most);
  if (!over.length) return;
  const chosenOver = parseFloat(select.value) > most;
  for (const option of over) option.remove();
  select.add(new Option(String(most), String(most)));
  if (chosenOver) select.value = String(most);
}

async function start() {
  ui.meta = await api("GET", "/api/meta");
  fillGames();
  const params = new URLSearchParams(location.search);
  const notes = setGame(params.get("game") || DEFAULT_GAME);
  for (const colour of [0, 1]) {
    const note = setSide(colour, params.get(colour ? "o" : "x") || DEFAULT_SIDES[colour]);
    if (note) notes.push(note);
  }
  boundThink();
  const think = parseFloat(params.get("think"));
  if (params.get("think") !== null && !(think > 0)) {
    notes.push("think=" + params.get("think") + ": not a positive number of seconds; agents get " + $("think").value + " s per move.");
  } else if (think > ui.meta.max_think) {
    notes.push("think=" + params.get("think") + ": this server gives agents at most " + ui.meta.max_think + " s per move; they get " + $("think").value + " s.");
  }
  if (think > 0 && think <= ui.meta.max_think) {
    if (![...$("think").options].some((o) => parseFloat(o.value) === think)) $("think").add(new Option(String(think), String(think)));
    $("think").value = [...$("think").options].find((o) => parseFloat(o.value) === think).value;
  }
  if (params.get("hints") === "1") $("hints").checked = true;
  $("clock").value = (params.get("tc") || "").replace(/ /g, "+");  // tc=60+1 typed in a URL reads "60 1"
  $("clock").oninput = thinkFollowsClock;
  for (const kind of ["input", "change"]) document.querySelector(".setup").addEventListener(kind, noteSettings);
  thinkFollowsClock();
  setInterval(tickClocks, 100);
  $("new-game").onclick = () => newGame({}, [], true);
  $("undo").onclick = () => act("/undo");
  $("resign").onclick = () => act("/resign");
  $("analyse").onclick = () => analyse();
  $("review").onclick = () => review();
  $("review-stop").onclick = () => stopReview();
  $("hints").onchange = () => { if ($("hints").checked) analyse(); else clearAnalysis(); };
  $("paste-load").onclick = () => loadPasted($("paste").value.trim());
  $("replay-first").onclick = () => stepReplay(0);
  $("replay-prev").onclick = () => stepReplay(ui.replayPly - 1);
  $("replay-next").onclick = () => stepReplay(ui.replayPly + 1);
  $("replay-last").onclick = () => stepReplay(1e9);
  document.addEventListener("keydown", (e) => {
    // the arrow keys step a replay, except while typing in a box or choosing in a list
    if (!ui.replay || e.target.closest("input, select, textarea, [contenteditable]")) return;
    if (e.key === "ArrowLeft") stepReplay(ui.replayPly - 1);
    if (e.key === "ArrowRight") stepReplay(ui.replayPly + 1);
  });
  // the game on the board goes with the page (a reload starts another from the URL); a page
  // shown again from the browser's cache starts its game again from the URL the same way
  // the game on the board is left with the page, not dropped: a reload (or Back to it) shows it
  // again, as it stands; a page shown again from the browser's cache reads its address again
  window.addEventListener("pagehide", leaveGame);
  window.addEventListener("pageshow", (e) => { if (e.persisted) location.reload(); });
  // Back or Forward to another game's address: the page reads it again (and shows that game)
  window.addEventListener("popstate", () => location.reload());
  const listed = loadTournaments(params.get("tournament"));
  const position = params.get("pos") || "", moves = params.get("moves") || "";
  if (!(await attach(params))) {
    const refused = await newGame({ position, moves }, notes);
    if (refused) await fallBack([...notes, refused], ui.refusal, { position, moves });
  } else say(notes.join(" "));
  // the URL's stored game once its tournament is listed (none where that tournament was not)
  const listNote = await listed;
  const told = listNote || await openUrlReplay(params);
  const shown = $("message").textContent;
  if (told) say(shown ? sentence(shown) + " " + told : told);
  updateUrl();
  document.body.dataset.ready = "1";
}

start().catch((err) => say(err.message));
