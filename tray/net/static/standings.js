// The tournament page: every table on the broker, pushed on the WebSocket.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  let retry = 500;
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function render(s) {
    $("tables").replaceChildren(...(s.tables || []).map((t) => {
      const box = el("div", "card");
      const st = t.state || { players: [] };
      box.appendChild(el("h2", "", "Table " + t.table + (st.title ? " \u00B7 " + st.title : "") +
        (st.finished ? " \u00B7 finished" : st.round ? " \u00B7 round " + st.round : "")));
      const table = el("table"), body = el("tbody");
      for (const p of st.players) {
        const tr = el("tr", p.active ? "turn" : "");
        tr.append(el("td", "", (p.active ? "\u25B6 " : "") + p.name), el("td", "score", p.score));
        body.appendChild(tr);
      }
      table.appendChild(body); box.appendChild(table);
      if (st.finished) box.appendChild(el("p", "winner", "Winner: " + [].concat(st.winner || []).join(", ")));
      box.appendChild(el("p", "small", (t.events || 0) + " events"));
      return box;
    }));
    $("finished").replaceChildren(...(s.finished_games || []).map((g) =>
      el("li", "", "Table " + g.table + ", " + (g.title || g.game) + ": " +
         g.players.map((p) => p.name + " " + p.score).join(", ") + " \u2014 " +
         [].concat(g.winner || []).join(", ") + " won")));
  }
  function connect() {
    const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws");
    ws.onopen = () => { retry = 500; $("link").textContent = "live"; $("link").className = "tag on"; };
    ws.onmessage = (ev) => { const m = JSON.parse(ev.data); if (m.type === "state") render(m.state); };
    ws.onclose = () => { $("link").textContent = "reconnecting"; $("link").className = "tag off";
      setTimeout(connect, retry); retry = Math.min(retry * 2, 5000); };
  }
  document.addEventListener("DOMContentLoaded", connect);
})();
