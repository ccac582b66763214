"""The browser board, ``boardlab serve``: a FastAPI app (:mod:`.app`) serving one static page.

People play every game by clicking, watch two agents, analyse positions with exact values or a
search, load positions from the URL and replay stored arena games. Agents and solvers think in
worker processes (:mod:`.workers`); games live in a bounded hall (:mod:`.hall`). Needs the
``web`` extra (fastapi, uvicorn).
"""
