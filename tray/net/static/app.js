// The phone page: follows the table on the WebSocket, offers a claimed seat's button.
// Everything shown is set with textContent: names and messages are never parsed as HTML.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const KEY = "dicetray-token";
  let socket = null, retry = 500, state = null;

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  const PIPS = { 1: [4], 2: [0, 8], 3: [0, 4, 8], 4: [0, 2, 6, 8], 5: [0, 2, 4, 6, 8],
                 6: [0, 2, 3, 5, 6, 8] };
  const COLOURS = { red: "#eb574b", blue: "#4a98f5", green: "#50c873", yellow: "#f5c837",
                    orange: "#fa9137", purple: "#c373eb", white: "#f4f4f0", black: "#222" };

  function die(d) {
    const box = el("div", "die");
    box.dataset.die = d.die; box.dataset.face = d.face;
    box.title = d.die + ":" + d.face;
    const colour = COLOURS[d.die] || COLOURS[(d.die.split(/[-_]/)[0])];
    if (colour) { box.style.background = colour; if (d.die !== "white") box.style.color = d.die === "yellow" ? "#111" : "#fff"; }
    const n = Number(d.face);
    if (Number.isInteger(n) && n >= 1 && n <= 6 && !colour) {
      box.classList.add("pips");
      for (let i = 0; i < 9; i++) box.appendChild(el("span", PIPS[n].includes(i) ? "pip" : "pip off"));
    } else {
      box.textContent = d.face === "star" ? "\u2605" : d.face;
    }
    return box;
  }

  function render(s) {
    state = s;
    document.title = "dicetray: " + (s.title || "");
    $("title").textContent = s.title || "dicetray";
    $("table").textContent = s.table ? "table " + s.table : "";
    $("prompt").textContent = s.finished ? "Game over" : (s.prompt || "");
    const msg = $("message");
    msg.hidden = !s.message; msg.textContent = s.message || "";
    $("round").textContent = s.round ? "round " + s.round : "";
    const body = $("scores").tBodies[0];
    body.replaceChildren();
    for (const p of s.players) {
      const tr = el("tr", p.active ? "turn" : "");
      const name = el("td", "name", p.active ? "\u25B6 " : "");
      name.appendChild(el("span", "pname", p.name));
      if (p.chosen) name.appendChild(el("span", "badge", "chosen"));
      else if (p.awaited) name.appendChild(el("span", "badge", "to play"));
      if (p.phone) name.appendChild(el("span", "badge", "phone"));
      tr.append(name, el("td", "score", p.score));
      body.appendChild(tr);
    }
    const w = $("winner");
    w.hidden = !s.finished;
    w.textContent = s.finished ? "Winner: " + [].concat(s.winner || []).join(", ") : "";
    $("total").textContent = s.total !== null && s.total !== undefined ? "total " + s.total : "";
    $("dice").replaceChildren(...(s.roll || []).map(die));
    const odds = $("odds").tBodies[0];
    odds.replaceChildren();
    for (const o of s.odds || []) {
      const tr = el("tr");
      tr.append(el("td", "", o.choice), el("td", "score", "bust " + Math.round(o.p_bust * 100) + "%"),
                el("td", "score", "expect " + o.expect));
      odds.appendChild(tr);
    }
    $("odds-card").hidden = !(s.odds || []).length;
    $("log").replaceChildren(...(s.log || []).map((line) => el("li", "", line)));
    renderYou(s.you);
    const sel = $("claim-seat"), keep = sel.value;
    sel.replaceChildren(...s.players.map((p) => { const o = el("option", "", p.name); o.value = p.seat; return o; }));
    if (keep) sel.value = keep;
  }

  function renderYou(you) {
    $("you").hidden = !you;
    $("claim-card").hidden = !!you;
    if (!you) return;
    const d = you.decision || { kind: "none" };
    $("you-name").textContent = "You are " + you.name;
    const words = [];
    if (d.press) words.push("Press: " + d.press);
    if (d.hold) words.push("Hold: " + d.hold);
    $("you-what").textContent = words.length ? words.join(" \u00B7 ") : "Nothing for you to decide now.";
    const sec = $("you-secret");
    sec.hidden = d.kind !== "secret";
    sec.textContent = d.kind === "secret" ? (d.mine ? "Your choice: " + d.mine.toUpperCase() + " (only you see it)" : "Not chosen yet") : "";
    const list = $("you-choices");
    list.replaceChildren(...(d.labels || []).map((l, i) => el("li", i === d.highlighted ? "hl" : "", l)));
    $("press").disabled = !d.press && d.kind !== "menu";
  }

  function send(msg) { if (socket && socket.readyState === 1) socket.send(JSON.stringify(msg)); }

  function connect() {
    const proto = location.protocol === "https:" ? "wss://" : "ws://";
    socket = new WebSocket(proto + location.host + "/ws");
    socket.onopen = () => {
      retry = 500;
      $("link").textContent = "live"; $("link").className = "tag on";
      send({ type: "hello", token: localStorage.getItem(KEY) });
    };
    socket.onmessage = (ev) => {
      const m = JSON.parse(ev.data);
      if (m.type === "state") render(m.state);
      else if (m.type === "claimed") localStorage.setItem(KEY, m.token);
      else if (m.type === "released") localStorage.removeItem(KEY);
      else if (m.type === "error") { const e = $("message"); e.hidden = false; e.textContent = m.error; }
    };
    socket.onclose = () => {
      $("link").textContent = "reconnecting"; $("link").className = "tag off";
      setTimeout(connect, retry); retry = Math.min(retry * 2, 5000);
    };
  }

  function loadHistory() {
    fetch("/api/history").then((r) => r.json()).then((h) => {
      $("history").replaceChildren(...(h.games || []).map((g) =>
        el("li", "", g.game + ": " + g.players.map((p, i) => p + " " + g.scores[i]).join(", ") +
           (g.finished ? " \u2014 " + (g.winners || []).join(", ") + " won" : " (unfinished)"))));
    }).catch(() => {});
  }

  document.addEventListener("DOMContentLoaded", () => {
    $("press").addEventListener("click", () => send({ type: "press", long: false }));
    $("hold").addEventListener("click", () => send({ type: "press", long: true }));
    $("release").addEventListener("click", () => { send({ type: "release" }); localStorage.removeItem(KEY); });
    $("claim").addEventListener("submit", (ev) => {
      ev.preventDefault();
      send({ type: "claim", seat: Number($("claim-seat").value), code: $("claim-code").value.trim() });
      $("claim-code").value = "";
    });
    $("qr").src = "/qr.svg";
    loadHistory();
    connect();
  });
})();
