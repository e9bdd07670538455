// A seat's page (or the spectators'): polls the protocol's view, shows the observation
// labelled by the game's schema, the decision as buttons, and the events as a log.
"use strict";

const game = location.pathname.split("/").pop();
const token = new URLSearchParams(location.search).get("token");
const query = token ? `token=${encodeURIComponent(token)}&` : "";
let schema = null;
let last = 0;
let version = -1;

function words(value) {
  if (value === null || value === undefined) return "none";
  if (value === true) return "yes";
  if (value === false) return "no";
  if (Array.isArray(value)) return "(" + value.map(words).join(", ") + ")";
  if (typeof value === "object") {
    if ("hidden" in value) return value.hidden === true ? "hidden" : `${value.hidden} hidden`;
    if ("top" in value) return `${words(value.top)} on top of ${value.size}`;
    return Object.entries(value).map(([k, v]) => `${k} ${words(v)}`).join("; ");
  }
  if (typeof value === "string") return schema.labels[value] || value.replaceAll("_", " ");
  return String(value);
}

function empty(value) {
  if (Array.isArray(value)) return value.every(v => v === null);
  if (value && typeof value === "object" && "hidden" in value) return value.hidden === 0;
  return value === 0 || value === null || value === false || value === "" || value === "empty";
}

// Whether a group showing `of` entries ("all", "own", "others") shows those of seat `key`.
function shows(of, seat, key) {
  if (of === "own") return key === String(seat);
  return of === "all" || key !== String(seat);
}

// Entries of a variable as [keys, value]: its keys' labels (from the schema), its value in
// words. A group of `own` or `others` entries (`of`) keeps only those of its seats, and the
// seat's own entries go without his seat in their keys.
function entries(spec, value, depth, path, out, of, seat) {
  if (depth === spec.keys.length) {
    if (!empty(value)) out.push([path.join("/"), words(value)]);
    return;
  }
  const labels = Object.fromEntries(spec.keys[depth].values.map(v => [v.key, v.label]));
  const bySeat = depth === 0 && spec.keys[0].over === "player";
  for (const [key, inner] of Object.entries(value)) {
    if (bySeat && !shows(of, seat, key)) continue;
    const named = bySeat && of === "own" ? path : path.concat([labels[key] || key]);
    entries(spec, inner, depth + 1, named, out, of, seat);
  }
}

function showView(view) {
  const table = document.getElementById("view");
  table.textContent = "";
  const titled = schema.groups.length > 1;
  for (const group of schema.groups) {
    let headed = false;
    for (const name of group.vars) {
      const spec = schema.vars[name];
      const out = [];
      entries(spec, view.observation[name], 0, [], out, group.of, view.seat);
      if (!out.length) continue;
      if (titled && !headed) {
        const head = table.insertRow().insertCell();
        head.colSpan = 2;
        head.className = "group";
        head.textContent = group.title;
        headed = true;
      }
      showEntries(table, name, out);
    }
  }
}

function showEntries(table, name, out) {
  const row = table.insertRow();
  row.insertCell().textContent = name.replaceAll("_", " ");
  row.cells[0].className = "name";
  const cell = row.insertCell();
  out.forEach(([keys, value], i) => {
    if (i) cell.append("; ");
    if (keys) {
      const k = document.createElement("span");
      k.className = "key";
      k.textContent = keys + " ";
      cell.appendChild(k);
    }
    const v = document.createElement("span");
    v.className = "value";
    v.textContent = value;
    cell.appendChild(v);
  });
}

function showDecision(view) {
  const box = document.getElementById("decision");
  box.textContent = "";
  const status = document.getElementById("status");
  const seat = view.seat ? `P${view.seat}` : "spectator";
  if (view.over) {
    const winners = view.outcome.winners.map(w => `P${w}`).join(", ") || "nobody";
    status.textContent = `${seat}: the game is over; winner(s) ${winners}`;
    return;
  }
  if (!view.decision) {
    status.textContent = `${seat}: waiting for P${view.to_move}`;
    return;
  }
  status.textContent = `${seat}: your decision`;
  const d = view.decision;
  const h = document.createElement("h2");
  h.textContent = d.prompt;
  box.appendChild(h);
  if (d.cite) {
    const c = document.createElement("p");
    c.className = "cite";
    c.textContent = `§${d.cite}`;
    box.appendChild(c);
  }
  for (const option of d.options) {
    const b = document.createElement("button");
    b.textContent = option.text;
    b.dataset.label = option.label;
    b.className = "option";
    b.onclick = () => move(view.version, option.value);
    box.appendChild(b);
  }
}

function logLine(event) {
  switch (event.kind) {
    case "decision":
    case "forced":
      return `P${event.seat} ${event.prompt}: ` +
        (event.secret ? "(a secret choice)" : (event.kind === "forced" ? "the only option, " : "") + event.label);
    case "die": return `rolled ${event.value} (d${event.sides})`;
    case "view": return null;
    case "move":
      return `${event.label}: ${where(event.from)} → ${where(event.to)}` +
        (event.revealed ? " (revealed)" : "");
    case "undo": return `P${event.seat} took back a move`;
    default: return event.line;
  }
}

// A place of a move in words: the zone and the labels of its keys (the schema's).
function where(place) {
  if (place === null) return "out of view";
  const keys = schema.vars[place.zone].keys;
  const named = place.keys.map((key, i) =>
    (keys[i].values.find(v => v.key === key) || {label: key}).label);
  return place.zone.replaceAll("_", " ") + (named.length ? ` (${named.join(", ")})` : "");
}

function showEvents(view) {
  const log = document.getElementById("log");
  for (const event of view.events_since) {
    const line = logLine(event);
    if (line === null) continue;
    const p = document.createElement("p");
    p.textContent = line;
    log.appendChild(p);
  }
  log.scrollTop = log.scrollHeight;
}

function show(view) {
  if (view.error) {
    document.getElementById("status").textContent = `${view.error.code}: ${view.error.message}`;
    document.getElementById("status").className = "error";
    return;
  }
  document.getElementById("title").textContent = view.title;
  showEvents(view);
  last = view.last_event;
  if (view.version !== version || view.over) {
    version = view.version;
    showView(view);
    showDecision(view);
  }
}

async function refresh() {
  const answer = await fetch(`/api/games/${game}/view?${query}since=${last}`);
  show(await answer.json());
}

async function move(at, option) {
  document.querySelectorAll("button.option").forEach(b => { b.disabled = true; });
  await fetch(`/api/games/${game}/move?${query}`, {
    method: "POST",
    body: JSON.stringify({version: at, option: option}),
  });
  await refresh();
}

async function start() {
  schema = await (await fetch(`/api/games/${game}/schema`)).json();
  await refresh();
  setInterval(refresh, 700);
}

start();
