// The BlokusZero board page: draws what the server describes and sends the person's actions.
// The rules live on the server: the page only proposes moves and shows the reason of a refusal.
"use strict";

const N = 20, CELL = 30, MARGIN = 20;
const FILL = ["#2a62d6", "#e8c21a", "#d23a2e", "#2f9e44"];
const LIGHT = ["#8fb0f0", "#f3e08a", "#ee9b94", "#95d6a2"];
const $ = (id) => document.getElementById(id);
const canvas = $("board"), ctx = canvas.getContext("2d");

const ui = {
  info: null, view: null, mode: "play", analysis: null, hover: null,
  piece: null, rotation: 0, flipped: false, busy: false,
  record: { file: null, game: 0, ply: 0 },
};

async function api(path, body) {
  const options = body === undefined ? {} : {
    method: "POST", headers: { "Content-Type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body) };
  const response = await fetch(path, options);
  const data = await response.json().catch(() => ({ error: `${path}: HTTP ${response.status}` }));
  if (!response.ok) throw new Error(data.error || `${path}: HTTP ${response.status}`);
  return data;
}

function say(text) { $("message").textContent = text || ""; }

// --- piece shapes: (column, row) cells, rows down the screen --------------------------------
function orient(cells, rotation, flipped) {
  let out = cells.map(([x, y]) => [flipped ? -x : x, y]);
  for (let k = 0; k < rotation; k++) out = out.map(([x, y]) => [-y, x]);  // clockwise on screen
  const minX = Math.min(...out.map((c) => c[0])), minY = Math.min(...out.map((c) => c[1]));
  out = out.map(([x, y]) => [x - minX, y - minY]);
  return out.sort((a, b) => a[1] - b[1] || a[0] - b[0]);  // the first cell is the anchor
}

function selectedCells() {
  return ui.piece ? orient(ui.info.pieces[ui.piece], ui.rotation, ui.flipped) : [];
}

function moveAt(col, row) {
  // The squares of the selected piece with its anchor on (col, row), or null if off the board.
  const cells = selectedCells();
  if (!cells.length) return null;
  const [ax, ay] = cells[0];
  const squares = cells.map(([x, y]) => [col + x - ax, row + y - ay]);
  if (squares.some(([x, y]) => x < 0 || y < 0 || x >= N || y >= N)) return null;
  return squares;
}

const squareName = ([col, row]) => String.fromCharCode(97 + col) + (N - row);

// --- drawing --------------------------------------------------------------------------------
function drawSquare(col, row, fill, inset = 1) {
  ctx.fillStyle = fill;
  ctx.fillRect(MARGIN + col * CELL + inset, MARGIN + row * CELL + inset, CELL - 2 * inset, CELL - 2 * inset);
}

function drawBoard() {
  const view = ui.view;
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  ctx.fillStyle = "#d9d4c7";
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.fillStyle = "#555";
  ctx.font = "11px sans-serif";
  ctx.textAlign = "center";
  ctx.textBaseline = "middle";
  for (let i = 0; i < N; i++) {
    ctx.fillText(String.fromCharCode(97 + i), MARGIN + i * CELL + CELL / 2, MARGIN / 2);
    ctx.fillText(String(N - i), MARGIN / 2, MARGIN + i * CELL + CELL / 2);
  }
  for (let row = 0; row < N; row++) {
    for (let col = 0; col < N; col++) {
      const colour = view ? view.board[row][col] : -1;
      drawSquare(col, row, colour >= 0 ? FILL[colour] : "#f7f4ee");
    }
  }
  // The starting corners, while free: Blue a20, Yellow t20, Red t1, Green a1.
  [[0, 0], [N - 1, 0], [N - 1, N - 1], [0, N - 1]].forEach(([col, row], c) => {
    if (view && view.board[row][col] < 0) {
      ctx.fillStyle = FILL[c];
      ctx.beginPath();
      ctx.arc(MARGIN + col * CELL + CELL / 2, MARGIN + row * CELL + CELL / 2, 5, 0, 2 * Math.PI);
      ctx.fill();
    }
  });
  if (view && view.last_move) {  // the last move: a white dot on each of its squares
    ctx.fillStyle = "#fff";
    for (const [x, y] of view.last_move.squares) {
      ctx.beginPath();
      ctx.arc(MARGIN + x * CELL + CELL / 2, MARGIN + (N - 1 - y) * CELL + CELL / 2, 4, 0, 2 * Math.PI);
      ctx.fill();
    }
  }
  drawAnalysis();
  drawGhost();
}

function drawAnalysis() {
  if (!ui.analysis || ui.analysis.ply !== ui.view.ply) return;
  const moves = ui.analysis.moves.map((m, rank) => [m, rank]).reverse();  // the best drawn last, on top
  for (const [m, rank] of moves) {
    ctx.strokeStyle = rank === 0 ? "#000" : "#444";
    ctx.lineWidth = rank === 0 ? 3 : 1.5;
    ctx.setLineDash(rank === 0 ? [] : [4, 3]);
    for (const [x, y] of m.squares) {
      ctx.fillStyle = LIGHT[ui.analysis.colour] + "cc";
      ctx.fillRect(MARGIN + x * CELL + 2, MARGIN + (N - 1 - y) * CELL + 2, CELL - 4, CELL - 4);
      ctx.strokeRect(MARGIN + x * CELL + 2, MARGIN + (N - 1 - y) * CELL + 2, CELL - 4, CELL - 4);
    }
  }
  ctx.setLineDash([]);
  // Each move's number on a square no better move labels, where it has one.
  const labelled = new Set();
  ui.analysis.moves.forEach((m, rank) => {
    const [x, y] = m.squares.find(([sx, sy]) => !labelled.has(`${sx},${sy}`)) || m.squares[0];
    labelled.add(`${x},${y}`);
    ctx.fillStyle = "#000";
    ctx.font = "bold 14px sans-serif";
    ctx.fillText(String(rank + 1), MARGIN + x * CELL + CELL / 2, MARGIN + (N - 1 - y) * CELL + CELL / 2);
  });
}

function drawGhost() {
  if (ui.mode !== "play" || !ui.hover || !personToMove()) return;
  const squares = moveAt(ui.hover[0], ui.hover[1]);
  if (!squares) return;
  ctx.globalAlpha = 0.6;
  for (const [col, row] of squares) drawSquare(col, row, FILL[ui.view.to_move], 3);
  ctx.globalAlpha = 1;
}

function pieceCanvas(name, colour, cell, rotation = 0, flipped = false) {
  const cells = orient(ui.info.pieces[name], rotation, flipped);
  const w = Math.max(...cells.map((c) => c[0])) + 1, h = Math.max(...cells.map((c) => c[1])) + 1;
  const c = document.createElement("canvas");
  c.width = w * cell + 2;
  c.height = h * cell + 2;
  const g = c.getContext("2d");
  g.fillStyle = FILL[colour];
  for (const [x, y] of cells) g.fillRect(1 + x * cell, 1 + y * cell, cell - 1, cell - 1);
  return c;
}

const personToMove = () => ui.view && ui.view.to_move >= 0 && ui.mode === "play" &&
  ui.view.seats && ui.view.seats[ui.view.to_move] === ui.info.person;

function drawScores() {
  const view = ui.view, body = $("scores").querySelector("tbody");
  body.innerHTML = "";
  ui.info.colours.forEach((name, c) => {
    const tr = document.createElement("tr");
    tr.id = `score-row-${c}`;
    if (view.to_move === c) tr.classList.add("to-move");
    if (view.winners.includes(c)) tr.classList.add("winner");
    const seat = (view.players && view.players[c]) || "";
    tr.innerHTML = `<td><span class="swatch" style="background:${FILL[c]}"></span>${name}</td>` +
      `<td>${seat}</td><td id="score-${c}">${view.scores[c]}</td><td>${view.squares[c]}</td>` +
      `<td class="left">${view.remaining[c].length}</td>`;
    const left = tr.querySelector(".left");
    for (const piece of view.remaining[c]) {
      const mini = pieceCanvas(piece, c, 4);
      mini.className = "mini";
      mini.title = piece;
      left.appendChild(mini);
    }
    body.appendChild(tr);
  });
}

function drawTray() {
  const tray = $("tray");
  tray.innerHTML = "";
  const mine = personToMove();
  $("tray-box").hidden = !mine;
  if (!mine) return;
  const c = ui.view.to_move;
  $("tray-title").textContent = `${ui.info.colours[c]}'s pieces`;
  if (ui.piece && !ui.view.remaining[c].includes(ui.piece)) ui.piece = null;
  for (const piece of ui.view.remaining[c]) {
    const rotation = piece === ui.piece ? ui.rotation : 0, flipped = piece === ui.piece && ui.flipped;
    const canvasPiece = pieceCanvas(piece, c, 12, rotation, flipped);
    canvasPiece.id = `piece-${piece}`;
    canvasPiece.title = piece;
    if (piece === ui.piece) canvasPiece.classList.add("selected");
    canvasPiece.addEventListener("click", () => select(piece));
    tray.appendChild(canvasPiece);
  }
  const selection = $("selection");
  selection.dataset.piece = ui.piece || "";
  selection.dataset.cells = JSON.stringify(selectedCells());
}

function drawStatus() {
  const view = ui.view, names = ui.info.colours;
  let text;
  if (view.over) {
    const best = view.winners.map((c) => names[c]).join(" and ");
    text = `Game over: ${best} ${view.winners.length > 1 ? "share the win" : "wins"}`;
    $("result").textContent = `Final scores: ${names.map((n, c) => `${n} ${view.scores[c]}`).join(", ")}`;
  } else {
    const seat = view.players && view.players[view.to_move];
    text = `${names[view.to_move]} to move` + (seat ? ` (${seat})` : "");
    if (ui.mode === "play" && !personToMove()) text += ui.busy ? ": thinking…" : "";
    $("result").textContent = "";
  }
  if (view.passing && view.passing.length) {
    text += `; ${view.passing.map((c) => names[c]).join(", ")} had no move left and passed`;
  }
  $("status").textContent = text;
  $("status").dataset.over = view.over ? "1" : "0";
}

function drawMoves() {
  const list = $("moves"), names = ui.info.colours;
  list.innerHTML = "";
  ui.view.moves.forEach((m, i) => {
    const li = document.createElement("li");
    const passed = m.passed.length ? ` (${m.passed.map((c) => names[c]).join(", ")} passed)` : "";
    li.textContent = `${names[m.colour]} ${m.move}${passed}`;
    if (i === ui.view.ply - 1) li.classList.add("current");
    list.appendChild(li);
  });
  list.scrollTop = list.scrollHeight;
}

function drawAnalysisTable() {
  const table = $("analysis");
  table.innerHTML = "";
  if (!ui.analysis || ui.analysis.ply !== ui.view.ply) return;
  const a = ui.analysis;
  table.innerHTML = `<caption>${a.player}: ${a.simulations} simulations for ${ui.info.colours[a.colour]}</caption>` +
    "<tr><th>#</th><th>move</th><th>visits</th><th>share</th><th>value</th></tr>" +
    a.moves.map((m, i) => `<tr><td>${i + 1}</td><td>${m.move}</td><td>${m.visits}</td>` +
      `<td>${(100 * m.share).toFixed(1)}%</td><td>${m.value === null ? "–" : m.value.toFixed(3)}</td></tr>`).join("");
}

function render(view) {
  if (view) ui.view = view;
  if (!ui.view) return;
  drawBoard();
  drawScores();
  drawStatus();
  drawMoves();
  drawAnalysisTable();
  if (ui.mode === "play") {
    drawTray();
    $("resume").hidden = !(ui.view.waiting_for === "player") || ui.busy;
  } else {
    $("ply-label").textContent = `${ui.view.ply} / ${ui.view.length}`;
    $("record-title").textContent = ui.view.title || "";
    $("ply-slider").max = ui.view.length;
    $("ply-slider").value = ui.view.ply;
  }
}

// --- play -----------------------------------------------------------------------------------
function select(piece) {
  if (ui.piece !== piece) { ui.rotation = 0; ui.flipped = false; }
  ui.piece = piece;
  render();
}

function turn(kind) {
  if (!ui.piece) return;
  if (kind === "rotate") ui.rotation = (ui.rotation + 1) % 4;
  else ui.flipped = !ui.flipped;
  render();
}

async function act(work) {
  // One action at a time; its refusal is shown, and the game carries on.
  if (ui.busy) return;
  ui.busy = true;
  document.body.dataset.busy = "1";
  say("");
  try { await work(); } catch (err) { say(err.message); } finally {
    ui.busy = false;
    document.body.dataset.busy = "0";
    render();
  }
}

async function playersMove() {
  // The players move until it is a person's turn or the game ends.
  while (ui.mode === "play" && ui.view.waiting_for === "player") {
    render();
    const before = ui.view.ply;
    ui.view = await api("/api/player_move", { ply: before });
    ui.analysis = null;
    if (ui.view.ply === before) break;  // an undo or a new game overtook the request
  }
}

async function place(col, row) {
  const squares = moveAt(col, row);
  if (!squares) { say("the piece does not fit on the board there"); return; }
  await act(async () => {
    ui.view = await api("/api/move", { colour: ui.view.to_move, move: squares.map(squareName).join(",") });
    ui.piece = null;
    ui.analysis = null;
    await playersMove();
  });
}

async function analyse() {
  await act(async () => {
    say("analysing…");
    if (ui.mode === "watch" && !ui.record.file) throw new Error("open a record first");
    const body = ui.mode === "watch" ? { file: ui.record.file, game: ui.record.game, ply: ui.view.ply } : {};
    const result = await api("/api/analyse", body);
    ui.analysis = { ...result, ply: ui.view.ply };
    say("");
  });
}

function seatChoice() {
  const box = $("seat-choice");
  box.innerHTML = "";
  const options = [ui.info.person, ...ui.info.players];
  ui.info.colours.forEach((name, c) => {
    const label = document.createElement("label");
    label.textContent = `${name} `;
    const choice = document.createElement("select");
    choice.id = `seat-${c}`;
    for (const o of options) choice.add(new Option(o, o, false, ui.view.seats[c] === o));
    label.appendChild(choice);
    box.appendChild(label);
  });
}

// --- watch ----------------------------------------------------------------------------------
async function openRecords() {
  const files = await api("/api/records");
  const select = $("record-file");
  select.innerHTML = "";
  select.add(new Option(files.length ? "choose a record…" : "no records (start the board with --records DIR)", ""));
  for (const f of files) select.add(new Option(f.id, f.id));
}

async function openFile(file) {
  ui.record = { file, game: 0, ply: 0 };
  const games = await api(`/api/records/games?file=${encodeURIComponent(file)}`);
  const select = $("record-game");
  select.innerHTML = "";
  for (const g of games) {
    const players = g.players ? ` ${g.players.join(" ")}` : "";
    const scores = g.scores ? ` (${g.scores.join(" ")})` : "";
    select.add(new Option(`${g.title}${players}${scores}`, g.index));
  }
  await showRecord(0, 0);
}

async function showRecord(game, ply) {
  const r = ui.record;
  if (!r.file) return;
  r.game = game;
  r.ply = ply;
  const q = `file=${encodeURIComponent(r.file)}&game=${game}&ply=${r.ply}`;
  render(await api(`/api/records/view?${q}`));
}

function step(delta) {
  if (!ui.record.file || ui.mode !== "watch") return;
  const target = delta === "end" ? ui.view.length : delta === "start" ? 0 : ui.view.ply + delta;
  if (target < 0 || target > ui.view.length) return;
  act(() => showRecord(ui.record.game, target));
}

async function setMode(mode) {
  ui.mode = mode;
  ui.analysis = null;
  $("tab-play").classList.toggle("active", mode === "play");
  $("tab-watch").classList.toggle("active", mode === "watch");
  $("play-panel").hidden = mode !== "play";
  $("watch-panel").hidden = mode !== "watch";
  if (mode === "play") {
    ui.view = await api("/api/game");
    await playersMove();
  } else {
    await openRecords();
    if (ui.record.file) {
      $("record-file").value = ui.record.file;
      await showRecord(ui.record.game, ui.record.ply);
    }
  }
}

// --- wiring ---------------------------------------------------------------------------------
function cellOf(event) {
  const rect = canvas.getBoundingClientRect();
  const col = Math.floor((event.clientX - rect.left - MARGIN) / CELL);
  const row = Math.floor((event.clientY - rect.top - MARGIN) / CELL);
  return col >= 0 && row >= 0 && col < N && row < N ? [col, row] : null;
}

canvas.addEventListener("mousemove", (event) => {
  const cell = cellOf(event);
  if (String(cell) !== String(ui.hover)) { ui.hover = cell; drawBoard(); }
});
canvas.addEventListener("mouseleave", () => { ui.hover = null; drawBoard(); });
canvas.addEventListener("click", (event) => {
  const cell = cellOf(event);
  if (cell && personToMove() && ui.piece) place(cell[0], cell[1]);
});
document.addEventListener("keydown", (event) => {
  if (event.target.tagName === "INPUT" || event.target.tagName === "SELECT") return;
  const key = event.key.toLowerCase();
  if (key === "r") turn("rotate");
  else if (key === "f") turn("flip");
  else if (key === "escape") { ui.piece = null; render(); }
  else if (key === "a") analyse();
  else if (key === "u" && ui.mode === "play") $("undo").click();
  else if (event.key === "ArrowRight") step(1);
  else if (event.key === "ArrowLeft") step(-1);
  else if (event.key === "Home") step("start");
  else if (event.key === "End") step("end");
});
$("rotate").addEventListener("click", () => turn("rotate"));
$("flip").addEventListener("click", () => turn("flip"));
$("undo").addEventListener("click", () => act(async () => {
  ui.view = await api("/api/undo", {});
  ui.analysis = null;
}));
$("resume").addEventListener("click", () => act(playersMove));
$("new-box").addEventListener("toggle", seatChoice);
$("new").addEventListener("click", () => act(async () => {
  const seats = ui.info.colours.map((_, c) => $(`seat-${c}`).value);
  ui.view = await api("/api/new", { seats });
  ui.analysis = null;
  $("new-box").open = false;
  await playersMove();
}));
$("save").addEventListener("click", () => { window.location.href = "/api/save"; });
$("open").addEventListener("change", (event) => {
  const file = event.target.files[0];
  event.target.value = "";
  if (!file) return;
  act(async () => {
    ui.view = await api("/api/load", await file.text());
    ui.analysis = null;
    await playersMove();
  });
});
$("analyse").addEventListener("click", analyse);
$("tab-play").addEventListener("click", () => act(() => setMode("play")));
$("tab-watch").addEventListener("click", () => act(() => setMode("watch")));
$("record-file").addEventListener("change", (event) => {
  if (event.target.value) act(() => openFile(event.target.value));
});
$("record-game").addEventListener("change", (event) => act(() => showRecord(Number(event.target.value), 0)));
$("first").addEventListener("click", () => step("start"));
$("prev").addEventListener("click", () => step(-1));
$("next").addEventListener("click", () => step(1));
$("last").addEventListener("click", () => step("end"));
$("ply-slider").addEventListener("input", (event) => act(() => showRecord(ui.record.game, Number(event.target.value))));
$("play-from-here").addEventListener("click", () => act(async () => {
  if (!ui.record.file) throw new Error("open a record first");
  await api("/api/records/play", { file: ui.record.file, game: ui.record.game, ply: ui.view.ply });
  await setMode("play");
}));

(async () => {
  try {
    ui.info = await api("/api/info");
    $("analyse").hidden = !ui.info.analysis;
    $("tab-watch").hidden = !ui.info.records;
    await act(() => setMode("play"));
  } catch (err) { say(err.message); }
})();
