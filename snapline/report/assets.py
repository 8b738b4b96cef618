"""The page's own stylesheet and script, inlined into every page (no file, no network).

The script is plain DOM code with no framework: it reads the filters and hides the
snapshots (and timeline marks) that do not match. It only reads text from the page and
writes ``hidden`` flags and one counter's ``textContent``, never markup.
"""

from __future__ import annotations

__all__ = ["SCRIPT", "STYLE"]

STYLE = """
:root { --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --soft: #f6f8fa;
  --ok: #1a7f37; --warn: #9a6700; --bad: #cf222e; --accent: #0969da; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.5 -apple-system, "Segoe UI", "Noto Sans", Helvetica, Arial,
  sans-serif; color: var(--fg); background: #fff; }
main { max-width: 1200px; margin: 0 auto; padding: 0 24px 48px; }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 18px; margin: 0; }
code, pre, .path, .num { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas,
  "Liberation Mono", monospace; font-size: 12.5px; }
header.page { padding: 20px 0 12px; border-bottom: 1px solid var(--line); margin-bottom: 16px; }
.meta { color: var(--muted); margin: 0; }
.verdict { display: inline-block; margin: 10px 0 6px; padding: 4px 12px; border-radius: 6px;
  font-weight: 600; color: #fff; }
.verdict-ok { background: var(--ok); }
.verdict-drift, .verdict-problems { background: var(--warn); }
.verdict-damaged { background: var(--bad); }
ul.problems { margin: 4px 0 8px; padding-left: 20px; color: var(--bad); }
ul.problems .kind { font-weight: 600; margin-right: 6px; }
dl.totals { display: flex; flex-wrap: wrap; gap: 6px 22px; margin: 8px 0 0; }
dl.totals div { display: flex; flex-direction: column-reverse; }
dl.totals dt { color: var(--muted); font-size: 12px; }
dl.totals dd { margin: 0; font-size: 18px; font-weight: 600; }
dl.totals.small dd { font-size: 14px; }
div.authors { margin-top: 8px; }
ul.authors-who, ul.authors-skipped { list-style: none; display: flex; flex-wrap: wrap;
  gap: 2px 16px; margin: 4px 0 0; padding: 0; }
ul.authors-who .n { font-weight: 600; }
ul.authors-skipped { color: var(--muted); font-size: 12px; }
.added-n, dd.lines-added { color: var(--ok); }
.removed-n, dd.lines-removed { color: var(--bad); }
nav.filters { position: sticky; top: 0; z-index: 2; background: #fffffff0;
  display: flex; flex-wrap: wrap; align-items: center; gap: 8px 16px; padding: 8px 0;
  border-bottom: 1px solid var(--line); margin-bottom: 16px; }
nav.filters label { color: var(--muted); }
nav.filters select, nav.filters input { font: inherit; padding: 2px 6px; margin-left: 4px;
  border: 1px solid var(--line); border-radius: 6px; }
nav.filters .count { margin-left: auto; color: var(--muted); }
section.timeline { margin-bottom: 20px; }
.lane { display: grid; grid-template-columns: 200px 1fr 70px; gap: 10px; align-items: center;
  margin: 4px 0; }
.lane .who { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.lane .track { position: relative; height: 18px; background: var(--soft);
  border: 1px solid var(--line); border-radius: 4px; }
.lane .mark { position: absolute; top: 2px; width: 4px; height: 12px; margin-left: -2px;
  border-radius: 1px; background: var(--accent); }
.lane .n { color: var(--muted); text-align: right; }
section.range { border: 1px solid var(--line); border-radius: 8px; margin: 0 0 18px; }
section.range > header { background: var(--soft); padding: 12px 16px;
  border-bottom: 1px solid var(--line); border-radius: 8px 8px 0 0; }
section.range.open > header { background: #fff8c5; }
section.joined { margin: 10px 0 0 12px; padding-left: 12px; border-left: 3px solid var(--line); }
section.joined > h4 { font-size: 13px; font-weight: 600; margin: 0 0 4px; color: var(--muted); }
.tags { margin-left: 8px; }
.tag { display: inline-block; background: #ddf4ff; color: #0550ae; border-radius: 10px;
  padding: 0 8px; margin-right: 4px; font-size: 12px; }
.description { white-space: pre-wrap; margin: 6px 0 0; }
article.snapshot { padding: 10px 16px; border-top: 1px solid var(--line); }
section.range > header + article.snapshot { border-top: 0; }
article.snapshot > h3 { font-size: 14px; font-weight: 400; margin: 0; display: flex;
  flex-wrap: wrap; gap: 4px 12px; align-items: baseline; }
article.snapshot .num { font-weight: 700; color: var(--accent); text-decoration: none; }
.tool { background: #eaeef2; border-radius: 4px; padding: 0 6px; }
.session { color: #8250df; }
.check { border-radius: 4px; padding: 0 6px; font-weight: 600; }
.check.pass { background: #dafbe1; color: #1a7f37; }
.check.fail { background: #ffebe9; color: #cf222e; }
.when, .stat { color: var(--muted); }
.what { white-space: pre-wrap; flex-basis: 100%; }
ul.files { list-style: none; margin: 6px 0; padding: 0; }
ul.files li { margin: 1px 0; }
.k { display: inline-block; width: 18px; text-align: center; font-weight: 700;
  border-radius: 3px; margin-right: 6px; font-family: ui-monospace, monospace; }
.k-added { color: var(--ok); } .k-modified { color: var(--warn); }
.k-deleted { color: var(--bad); } .k-renamed { color: var(--accent); }
.note { color: var(--muted); margin-left: 6px; }
details > summary { cursor: pointer; color: var(--accent); }
pre.diff { margin: 6px 0 0; padding: 8px 10px; background: var(--soft); border-radius: 6px;
  overflow-x: auto; line-height: 1.45; }
.diff .gi { color: #116329; background: #dafbe1; }
.diff .gd { color: #82071e; background: #ffebe9; }
.diff .gh { color: var(--fg); font-weight: 700; }
.diff .gu { color: #8250df; }
p.cut { color: var(--warn); margin: 4px 0 0; }
p.empty { color: var(--muted); padding: 10px 16px; margin: 0; }
p.prompt { margin: 0; padding: 8px 16px 0; color: var(--muted); border-top: 1px solid var(--line); }
footer { color: var(--muted); margin-top: 24px; }
[hidden] { display: none !important; }
"""

SCRIPT = """
(function () {
  "use strict";
  function all(root, selector) {
    return Array.prototype.slice.call(root.querySelectorAll(selector));
  }
  var session = document.getElementById("f-session");
  var tool = document.getElementById("f-tool");
  var path = document.getElementById("f-path");
  var count = document.getElementById("f-count");
  if (!session || !tool || !path || !count) { return; }
  var snapshots = all(document, "article.snapshot");
  function matches(node, s, t) {
    return (s === "" || node.getAttribute("data-session") === s) &&
      (t === "" || node.getAttribute("data-tool") === t);
  }
  function touches(article, p) {
    if (p === "") { return true; }
    return all(article, ".path").some(function (el) {
      return el.textContent.toLowerCase().indexOf(p) !== -1;
    });
  }
  function apply() {
    var s = session.value, t = tool.value, p = path.value.trim().toLowerCase();
    var shown = 0, visible = {};
    snapshots.forEach(function (article) {
      var keep = matches(article, s, t) && touches(article, p);
      article.hidden = !keep;
      if (keep) { shown += 1; visible[article.id] = true; }
    });
    all(document, "section.range").forEach(function (section) {
      var any = all(section, "article.snapshot").some(function (a) { return !a.hidden; });
      section.hidden = !any && (s !== "" || t !== "" || p !== "");
    });
    all(document, ".lane .mark").forEach(function (mark) {
      mark.hidden = !visible[mark.getAttribute("href").slice(1)];
    });
    count.textContent = shown + " of " + snapshots.length + " snapshots shown";
  }
  [session, tool, path].forEach(function (el) {
    el.addEventListener("input", apply);
    el.addEventListener("change", apply);
  });
  apply();
})();
"""
