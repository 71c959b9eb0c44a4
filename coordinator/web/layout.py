"""The frame of every dashboard page: the report's style sheet and the dashboard's own, the top bar,
and the one small inline script (live updates, stepping through a game).

Nothing is loaded from anywhere else: no CDN, no web font, no image file. The Content-Security-
Policy sent with every answer (:data:`CSP`) says so to the browser too: it runs this one script
(by its hash) and nothing else, and fetches only from the dashboard itself.
"""

from __future__ import annotations

import base64
import hashlib
from contextvars import ContextVar
from html import escape

from coordinator.reports.html import CSS as REPORT_CSS
from coordinator.web.board import BOARD_CSS

DASHBOARD_CSS = """
header.bar{display:flex;flex-wrap:wrap;gap:1.2rem;align-items:baseline;border-bottom:1px solid #ddd;
padding:.4rem 0;margin-bottom:.6rem}header.bar .brand{font-weight:700;color:#222;text-decoration:none}
.live{display:flex;flex-wrap:wrap;gap:.3rem 1.1rem;background:#f3f7fc;border:1px solid #c9d9ec;
border-radius:4px;padding:.45rem .7rem;margin:.6rem 0}.live>span{white-space:nowrap}.live .k{color:#556}
.running{color:#0a5bb5;font-weight:600}.failed{color:#b00020;font-weight:600}
.interrupted{color:#8a5a00;font-weight:600}
form.filters{margin:.5rem 0}form.filters label{margin-right:.8rem}
.pager a{margin-right:1rem}.links a{margin-right:.9rem}
.replay{display:flex;flex-wrap:wrap;gap:1.5rem;align-items:flex-start}.replay>div:first-child{max-width:440px}
.controls{margin:.4rem 0}.controls a{display:inline-block;padding:.15rem .6rem;margin-right:.3rem;
border:1px solid #bbb;border-radius:3px;text-decoration:none;color:#222}
table.moves td{text-align:left}table.moves a{text-decoration:none;color:#124;padding:0 .2rem}
table.moves a.cur{background:#f7e04b}code.fen{word-break:break-all}
header.bar .who{margin-left:auto}header.bar form{display:inline}
form.people label{display:block;margin:.35rem 0}form.people fieldset{margin:.6rem 0;border:1px solid #ddd}
form.act{display:inline-block;margin-right:.4rem}.error{color:#b00020;font-weight:600}
.notice{background:#fff7d6;border:1px solid #e6cf73;border-radius:4px;padding:.4rem .7rem}
"""

#: The dashboard's only script: poll ``data-live`` and replace the parts that changed; fill a
#: submission form's fields from its preset (the server's forms); step through a game's positions
#: (buttons, move list, arrow keys) without loading the page again.
SCRIPT = """
(() => {
  "use strict";
  const main = document.querySelector("main[data-live]");
  if (main && !("final" in main.dataset)) {
    const every = Number(main.dataset.every) * 1000;
    const box = document.getElementById("parts");
    const live = document.getElementById("live");
    const make = (part) => {
      const div = document.createElement("div");
      div.className = "part";
      div.dataset.key = part[0];
      div.dataset.digest = part[1];
      div.innerHTML = part[2];
      return div;
    };
    const apply = (html) => {
      if (live && typeof html.live === "string") live.innerHTML = html.live;
      if (!box || !Array.isArray(html.parts)) return;
      const keys = Array.from(box.children, (c) => c.dataset.key).join(" ");
      if (keys !== html.parts.map((p) => p[0]).join(" ")) {
        box.replaceChildren(...html.parts.map(make));
        return;
      }
      html.parts.forEach((p, i) => {
        if (box.children[i].dataset.digest !== p[1]) box.children[i].replaceWith(make(p));
      });
    };
    const poll = async () => {
      let final = false;
      try {
        const url = new URL(main.dataset.live, window.location.href);
        url.searchParams.set("since", main.dataset.version);
        url.searchParams.set("html", "1");
        const answer = await fetch(url, {headers: {Accept: "application/json"}, cache: "no-store"});
        if (answer.ok) {
          const data = await answer.json();
          if (data.html) apply(data.html);
          main.dataset.version = data.version;
          final = Boolean(data.final);
        }
      } catch (error) {
        // the dashboard is away for a moment: try again at the next tick
      }
      if (final) main.dataset.final = "";
      else window.setTimeout(poll, every);
    };
    window.setTimeout(poll, every);
  }
  const presets = document.querySelector("select[data-presets]");
  if (presets) {
    // a submission form's preset fills the fields it sets (and empties the limits it does not)
    const table = JSON.parse(presets.dataset.presets);
    const game = presets.form.elements.namedItem("game");
    presets.addEventListener("change", () => {
      const chosen = (table[game.value] || {})[presets.value];
      if (!chosen) return;
      Object.entries(chosen).forEach(([name, value]) => {
        const input = presets.form.elements.namedItem(name);
        if (input) input.value = value;
      });
    });
  }
  const board = document.querySelector("[data-plies]");
  if (board) {
    const layers = Array.from(board.querySelectorAll("g.ply"));
    const moves = Array.from(document.querySelectorAll("a[data-ply]"));
    const fen = document.getElementById("fen");
    const counter = document.getElementById("ply");
    let current = Number(board.dataset.ply);
    const show = (ply) => {
      const k = Math.max(0, Math.min(layers.length - 1, ply));
      layers.forEach((g, i) => g.setAttribute("display", i === k ? "inline" : "none"));
      moves.forEach((a) => a.classList.toggle("cur", Number(a.dataset.ply) === k));
      fen.textContent = layers[k].dataset.fen;
      counter.textContent = String(k);
      current = k;
      window.history.replaceState(null, "", "?ply=" + k);
    };
    const steps = {
      first: () => 0, prev: () => current - 1, next: () => current + 1, last: () => layers.length - 1,
    };
    document.addEventListener("click", (event) => {
      const link = event.target.closest("a[data-ply], a[data-step]");
      if (!link) return;
      event.preventDefault();
      show(link.dataset.step ? steps[link.dataset.step]() : Number(link.dataset.ply));
    });
    const keys = {ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last"};
    document.addEventListener("keydown", (event) => {
      if (keys[event.key]) {
        event.preventDefault();
        show(steps[keys[event.key]]());
      }
    });
  }
})();
"""

_SCRIPT_HASH = base64.b64encode(hashlib.sha256(SCRIPT.encode()).digest()).decode()

#: Sent with every answer: only this dashboard's own script, styles and requests.
CSP = (
    f"default-src 'none'; script-src 'sha256-{_SCRIPT_HASH}'; style-src 'unsafe-inline'; "
    "img-src data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)

#: The top bar's links.
MENU = (("/", "runs"), ("/workers", "workers"), ("/regressions", "regressions"))

#: The right of the top bar while a request is answered: who is logged in and their links (set by
#: the server, which has accounts: coordinator.server.web_auth); None: the read-only dashboard's.
ACCOUNT_BAR: ContextVar[str | None] = ContextVar("account_bar", default=None)


def document(title: str, body: str) -> str:
    """A whole page: ``body`` under the top bar, with the style sheets and the script."""
    menu = "".join(f'<a href="{href}">{escape(text)}</a>' for href, text in MENU)
    account = ACCOUNT_BAR.get()
    right = '<span class="muted">live, read-only</span>' if account is None else account
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<link rel="icon" href="data:,">'
        f"<title>{escape(title)} · arbiter</title>"
        f"<style>{REPORT_CSS}{DASHBOARD_CSS}{BOARD_CSS}</style></head><body>"
        f'<header class="bar"><a class="brand" href="/">arbiter</a>{menu}{right}</header>'
        f"{body}<script>{SCRIPT}</script></body></html>\n"
    )
