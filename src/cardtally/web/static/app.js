// cardtally serve: the round of the table, from the phones' cameras. No libraries.
"use strict";

const token = new URLSearchParams(location.search).get("token") || "";
const $ = (id) => document.getElementById(id);
let players = [];
let shown = 0; // review images are drawn again after a correction: a new URL each time

function api(path, params = {}) {
  const query = new URLSearchParams({ ...params, token });
  return `${path}?${query}`;
}

function say(text) { $("status").textContent = text; }
function fail(text) { $("error").textContent = text; }

async function call(path, options = {}, params = {}) {
  fail("");
  let response;
  busy += 1;
  try {
    response = await fetch(api(path, params), options);
  } catch (err) {
    fail("The laptop cannot be reached: is cardtally serve still running?");
    return null;
  } finally {
    busy -= 1;
  }
  const body = await response.json().catch(() => ({ error: `The laptop answered ${response.status}.` }));
  if (!response.ok) {
    fail(body.error || `The laptop answered ${response.status}.`);
    return null;
  }
  return body;
}

function postJSON(path, data) {
  return call(path, { method: "POST", headers: { "Content-Type": "application/json" },
                      body: JSON.stringify(data) });
}

function cell(row, text) {
  const td = document.createElement("td");
  td.textContent = text;
  row.appendChild(td);
}

function fill(tbody, rows) {
  tbody.replaceChildren();
  for (const values of rows) {
    const tr = document.createElement("tr");
    values.forEach((v) => cell(tr, v));
    tbody.appendChild(tr);
  }
}

// -- a new game ------------------------------------------------------------------------------

let decks = [];

function options(select, values, first = null) {
  const keep = select.value;
  select.replaceChildren(...(first ? [new Option(first, "")] : []),
                         ...values.map((v) => new Option(v, v)));
  if (values.includes(keep)) select.value = keep;
}

function addSeat() {
  const row = document.createElement("div");
  row.className = "seat";
  const name = document.createElement("input");
  name.className = "seat-player";
  name.placeholder = "name";
  name.setAttribute("aria-label", "player's name");
  const deck = document.createElement("select");
  deck.className = "seat-deck";
  deck.setAttribute("aria-label", "their deck");
  options(deck, decks, "deck...");
  row.append(name, deck);
  $("seats").appendChild(row);
}

function showChoices(state) {
  const same = decks.length === state.decks.length && decks.every((d, i) => d === state.decks[i]);
  decks = state.decks;
  if (!same) for (const select of document.querySelectorAll(".seat-deck")) options(select, decks, "deck...");
  if ($("rules").options.length !== state.rule_sets.length) options($("rules"), state.rule_sets);
  while ($("seats").children.length < 2) addSeat();
}

async function startGame(event) {
  event.preventDefault();
  const form = $("new-game-form");
  const seats = [...document.querySelectorAll(".seat")]
    .map((row) => ({ player: row.querySelector(".seat-player").value.trim(),
                     deck: row.querySelector(".seat-deck").value }))
    .filter((seat) => seat.player || seat.deck);
  const data = { players: seats, rules: $("rules").value };
  for (const key of ["target", "rounds", "penalty", "bonus", "pile_size", "deck_size"]) {
    data[key] = form.elements[key].value === "" ? null : Number(form.elements[key].value);
  }
  say("Starting the game...");
  const state = await postJSON("/api/game", data);
  say(state ? `Game ${state.game.game} is started.` : "");
  if (!state) return;
  $("seats").replaceChildren();
  form.reset();
  $("new-game").open = false;
  show(state);
}

// -- the game and its round ------------------------------------------------------------------

function showGame(state) {
  const game = state.game;
  $("hint").textContent = game ? "" :
    "No game yet: start one under New game (calibrate each deck first, at the bottom).";
  $("round").hidden = !game;
  showChoices(state);
  $("totals").hidden = !game;
  if (!game) {
    $("game-title").textContent = "Game";
    fill($("totals").tBodies[0], []);
    $("new-game").open = true;
    return;
  }
  players = game.players.map((p) => p.player);
  $("game-title").textContent = `Game ${game.game} (${game.rules.name}), ${game.rounds.length} round(s)`;
  const totals = Object.fromEntries(game.standings.map((s) => [s.player, s.total]));
  fill($("totals").tBodies[0], game.players.map((p) => [p.player, p.deck, totals[p.player] ?? 0]));
  const caller = $("caller");
  if (caller.options.length !== players.length + 1) {
    caller.replaceChildren(new Option("nobody", ""), ...players.map((p) => new Option(p, p)));
  }
}

function showRound(round) {
  $("proposal").hidden = !round;
  if (!round) { $("round-title").textContent = "Round"; return; }
  $("round-title").textContent = `Round ${round.number}`;
  fill($("counts").tBodies[0], round.players.map((p) =>
    [p.player, p.centre, p.leftover, (p.points > 0 ? "+" : "") + p.points, p.total]));
  $("caller").value = round.caller || "";
  showLeftovers(round);
  options($("fix-player"), players);
  const corrections = [...round.corrections, ...round.fixes];
  $("corrections").textContent = corrections.length ? `Corrections: ${corrections.join(", ")}` : "";
  const notes = [...round.warnings.map((w) => `Warning: ${w}`), ...round.to_check.map((c) => `Check: ${c}`)];
  $("warnings").replaceChildren(...notes.map((text) => {
    const li = document.createElement("li");
    li.textContent = text;
    return li;
  }));
  $("missing").textContent = round.missing ? `To save: ${round.missing}` : "";
  $("save").disabled = Boolean(round.missing);
  shown += 1;
  const photos = $("photos");
  photos.replaceChildren();
  for (const set of ["centre", "leftover"]) {
    for (const photo of round.photos[set]) photos.appendChild(photoFigure(photo));
  }
}

let typing = false; // "typed in" chosen here, its counts not sent yet

function showLeftovers(round) {
  const source = typing ? "typed" : round.leftovers;
  for (const radio of document.querySelectorAll('input[name="leftovers"]')) {
    radio.checked = radio.value === source;
  }
  $("left-typed").hidden = source !== "typed";
  const inputs = $("left-inputs");
  if (inputs.dataset.players !== players.join("\n")) {
    inputs.dataset.players = players.join("\n");
    inputs.replaceChildren(...players.map((player) => {
      const label = document.createElement("label");
      label.className = "left";
      const input = document.createElement("input");
      input.type = "number";
      input.min = "0";
      input.inputMode = "numeric";
      input.dataset.player = player;
      label.append(`${player} `, input);
      return label;
    }));
  }
  if (round.leftovers === "typed" && !typing) {
    for (const input of inputs.querySelectorAll("input")) {
      if (input !== document.activeElement) input.value = round.left[input.dataset.player] ?? "";
    }
  }
}

function leftoverChoice() {
  return document.querySelector('input[name="leftovers"]:checked').value;
}

function typedCounts() {
  const left = {};
  for (const input of $("left-inputs").querySelectorAll("input")) {
    if (input.value !== "") left[input.dataset.player] = Number(input.value);
  }
  return left;
}

function photoFigure(photo) {
  const figure = document.createElement("figure");
  const frame = document.createElement("div");
  frame.className = "frame";
  const img = document.createElement("img");
  img.alt = `Review image of the ${photo.set} photo ${photo.name}`;
  img.src = api(`/api/review/${photo.set}/${photo.index}`, { v: shown });
  frame.appendChild(img);
  // The review image is the photo (its width) with a legend strip below: place each card's
  // button on the photo part once the image's own size is known.
  img.addEventListener("load", () => {
    const photoHeight = img.naturalWidth * photo.photo_wh[1] / photo.photo_wh[0];
    for (const card of photo.cards) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "card";
      button.textContent = card.number;
      button.title = `card ${card.number}: ${card.player || card.deck || "nobody's"}`;
      button.dataset.number = card.number;
      button.style.left = `${card.x * 100}%`;
      button.style.top = `${card.y * photoHeight / img.naturalHeight * 100}%`;
      button.addEventListener("click", () => askWhose(photo, card));
      frame.appendChild(button);
    }
  });
  const caption = document.createElement("figcaption");
  caption.textContent = `${photo.set}: ${photo.name}, ${photo.cards.length} cards`;
  figure.append(frame, caption);
  return figure;
}

function askWhose(photo, card) {
  const dialog = $("card-dialog");
  $("card-question").textContent =
    `Card ${card.number} of ${photo.name} (now ${card.player || card.deck || "nobody's"}): whose is it?`;
  $("card-players").replaceChildren(...players.map((player) => {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = player;
    button.addEventListener("click", async () => {
      dialog.close();
      say(`Giving card ${card.number} to ${player}...`);
      const state = await postJSON("/api/card",
        { set: photo.set, photo: photo.name, number: card.number, player });
      say("");
      if (state) show(state);
    });
    return button;
  }));
  dialog.showModal();
}

let version = null; // of the state shown
let busy = 0; // requests of this page in flight

function show(state) {
  version = state.version;
  showGame(state);
  showRound(state.round);
  showCalibration(state.calibration);
}

// -- calibrating a deck -------------------------------------------------------------------------

function showCalibration(calibration) {
  const n = calibration.photos.length;
  $("calibration-photos").textContent = n ? `${n} photo(s) ready: ${calibration.photos.join(", ")}` : "";
  $("calibrate-deck").disabled = n === 0;
  $("drop-calibration").hidden = n === 0;
}

async function addCalibrationPhoto() {
  const input = $("calibration-input");
  const file = input.files[0];
  if (!file) return;
  say("Reading the photo...");
  const state = await call("/api/calibration/photo", {
    method: "POST", headers: { "Content-Type": file.type || "application/octet-stream" }, body: file,
  });
  input.value = "";
  say(state ? "The photo is ready." : "");
  if (state) show(state);
}

async function calibrateDeck() {
  const deck = $("deck-name").value.trim();
  say(`Calibrating ${deck || "the deck"}...`);
  $("calibrated").textContent = "";
  const state = await postJSON("/api/calibrate", { deck, replace: $("replace-deck").checked });
  say("");
  if (!state) return;
  const { summary, warning } = state.done;
  $("calibrated").textContent = warning ? `${summary} Warning: ${warning}` : summary;
  $("deck-name").value = "";
  $("replace-deck").checked = false;
  show(state);
}

async function dropCalibration() {
  const state = await call("/api/calibration/drop", { method: "POST" });
  if (state) show(state);
}

// Another phone's photo, correction or saved round (or a round saved on the laptop) shows
// here within a few seconds: poll the small version tag, fetch the state when it changes.
const POLL_MS = 2500;

async function poll() {
  if (document.hidden || busy || $("card-dialog").open || version === null) return;
  let response;
  try {
    response = await fetch(api("/api/version"), { cache: "no-store" });
  } catch (err) {
    return;
  }
  if (!response.ok) return;
  const { version: now } = await response.json();
  if (now === version || busy) return;
  // Not through call(): a message this phone shows stays until its own next action.
  const state = await fetch(api("/api/state"), { cache: "no-store" })
    .then((r) => (r.ok ? r.json() : null)).catch(() => null);
  if (state && !busy) show(state);
}

async function upload(input) {
  const file = input.files[0];
  if (!file) return;
  const set = input.dataset.set;
  say(`Counting the ${set} photo...`);
  const state = await call("/api/photo", {
    method: "POST", headers: { "Content-Type": file.type || "application/octet-stream" }, body: file,
  }, { set });
  input.value = "";
  say(state ? `The ${set} photo is counted.` : "");
  if (state) show(state);
}

async function settle() {
  const source = leftoverChoice();
  const state = await postJSON("/api/settle",
    { caller: $("caller").value || null, leftovers: source,
      left: source === "typed" ? typedCounts() : {} });
  if (state) { typing = false; show(state); }
}

function chooseLeftovers() {
  // Typed counts are sent once filled in ("Use these counts"); the other choices at once.
  typing = leftoverChoice() === "typed";
  $("left-typed").hidden = !typing;
  if (!typing) settle();
}

async function fixCount() {
  const change = Number($("fix-change").value);
  if (!Number.isInteger(change) || change === 0) { fail("Give the cards to add or take away."); return; }
  const fix = `${$("fix-player").value}=${$("fix-set").value}:${change > 0 ? "+" : ""}${change}`;
  const state = await postJSON("/api/fix", { fix });
  if (state) { say(`Fixed: ${fix}.`); show(state); }
}

async function save() {
  say("Saving...");
  const state = await call("/api/save", { method: "POST" });
  say(state ? `Round ${state.done} is saved.` : "");
  if (state) show(state);
}

async function discard() {
  const state = await call("/api/discard", { method: "POST" });
  if (state) { say("The round is dropped."); show(state); }
}

for (const input of [$("centre-input"), $("leftover-input")]) {
  input.addEventListener("change", () => upload(input));
}
$("caller").addEventListener("change", settle);
for (const radio of document.querySelectorAll('input[name="leftovers"]')) {
  radio.addEventListener("change", chooseLeftovers);
}
$("use-left").addEventListener("click", settle);
$("fix").addEventListener("click", fixCount);
$("save").addEventListener("click", save);
$("add-seat").addEventListener("click", addSeat);
$("calibration-input").addEventListener("change", addCalibrationPhoto);
$("calibrate-deck").addEventListener("click", calibrateDeck);
$("drop-calibration").addEventListener("click", dropCalibration);
$("new-game-form").addEventListener("submit", startGame);
$("discard").addEventListener("click", discard);
call("/api/state").then((state) => { if (state) show(state); });
setInterval(poll, POLL_MS);
