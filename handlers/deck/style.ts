/** The deck's one stylesheet, written into the page as it is (a constant of ours: nothing in it comes from outside). */
export const STYLE = `
:root {
  --fg:#1d2125;
  --muted:#5c6670;
  --line:#e3e6ea;
  --bg:#f5f6f8;
  --card:#fff;
  --accent:#2457c5;
  --warn:#9a5200;
  --bad:#b3261e;
  --good:#167a2e;
}
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, sans-serif; color: var(--fg); background: var(--bg); margin: 0; }
header { display:flex; gap:18px; align-items:center; padding:10px 20px; background:#1f2a37; color:#fff; }
header h1 { font-size:16px; margin:0; font-weight:600; }
header nav a { margin-right:14px; color:#c9d6ea; text-decoration:none; padding-bottom:2px; }
header nav a.here { color:#fff; border-bottom:2px solid #7aa7ff; }
header .status { flex:1; color:#ffd58a; font-size:13px; }
header .conn { font-size:12px; font-weight:600; padding:1px 8px; border-radius:10px; background:#3a4757; color:#fff; }
header .conn[data-conn="live"] { background:#1d6b34; }
header .conn[data-conn="reconnecting"] { background:#7a4a00; }
header .conn[data-conn="lost"] { background:#a3211a; }
.conn-banner {
  border:2px solid var(--bad);
  background:#fff1f0;
  color:#1d2125;
  border-radius:8px;
  padding:10px 14px;
  margin:0 0 12px;
}
.conn-banner[data-conn="reconnecting"] { border-color:var(--warn); background:#fff8e6; }
body[data-conn="lost"] main > :not(.conn-banner) { filter:grayscale(1); }
header .keys { color:#9aa8b8; font-family: ui-monospace, monospace; }
main { padding: 14px 20px; max-width: 1500px; }
h2 { font-size:15px; margin:6px 0 10px; } h3 { font-size:14px; margin:14px 0 6px; }
a { color: var(--accent); }
button {
  font: inherit;
  padding:3px 10px;
  border:1px solid #c4cbd3;
  border-radius:5px;
  background:#fff;
  cursor:pointer;
}
button:hover { background:#eef2f7; }
button:focus-visible, a:focus-visible, input:focus-visible { outline:2px solid var(--accent); outline-offset:1px; }
button.allow { border-color:var(--good); color:var(--good); } button.deny { border-color:var(--bad); color:var(--bad); }
button.option { border-color:var(--accent); color:var(--accent); margin:2px 6px 2px 0; }
button[disabled], textarea[disabled] { opacity:.55; cursor:not-allowed; }
input, select, textarea {
  font: inherit;
  padding:3px 6px;
  border:1px solid #c4cbd3;
  border-radius:5px;
  background:#fff;
}
.filters { display:flex; gap:12px; margin-bottom:12px; align-items:center; flex-wrap:wrap; }
#search { min-width: 320px; }
.costs { margin-left:auto; }
.panel { background:var(--card); border:1px solid var(--line); border-radius:8px; padding:10px 14px; margin:10px 0; }
.inbox { border-left:4px solid var(--warn); }
.count-badge {
  display:inline-block;
  min-width:22px;
  text-align:center;
  background:var(--warn);
  color:#fff;
  border-radius:11px;
  font-size:12px;
  padding:0 6px;
}
.count-badge[data-zero="true"] { background:var(--muted); }
.inbox-list { list-style:none; margin:0; padding:0; }
.inbox-entry { padding:8px 6px; border-top:1px solid var(--line); } .inbox-entry:first-child { border-top:0; }
.inbox-head { display:flex; gap:10px; align-items:baseline; margin-bottom:4px; }
.ask .needs-what { font-weight:500; margin-bottom:4px; white-space:pre-wrap; overflow-wrap:anywhere; }
.ask .plan { background:#fbf7ef; border:1px solid #f0dfbf; padding:8px; white-space:pre-wrap; margin:4px 0; }
.ask .answer { display:flex; gap:8px; margin-top:6px; } .ask .answer input { flex:1; max-width:420px; }
.question .q-text { margin:2px 0; }
.inbox-entry.held { background:#f3f4f6; } .inbox-entry.held .said { margin:2px 0; font-size:13px; }
.pending-answer { font-weight:500; } button.undo { border-color:var(--accent); color:var(--accent); font-weight:600; }
.ask .mark-answer { flex:1; max-width:520px; } .elsewhere { margin:6px 0 0; }
.chip.project { background:#e5ecff; }
.tool-input { background:#f3f4f6; padding:1px 5px; border-radius:4px; overflow-wrap:anywhere; }
.run { background:var(--card); border:1px solid var(--line); border-radius:8px; margin:12px 0; padding:8px 12px; }
.run h2 { display:flex; gap:14px; align-items:baseline; flex-wrap:wrap; }
.counts { display:flex; gap:6px; }
.count { font-size:12px; font-weight:500; padding:1px 8px; border-radius:10px; background:#eef1f4; }
.count.zero { color:var(--muted); font-weight:400; }
.count-working:not(.zero) { background:#dff5e3; }
.count-needs-you:not(.zero) { background:#ffe3b8; }
.count-idle:not(.zero) { background:#e5ecff; }
.count-host-lost:not(.zero) { background:#ffe3c2; color:#7a3f00; font-weight:600; }
.count-stale:not(.zero) { background:#f7d9d7; }
.count-failed:not(.zero) { background:#ffd6d6; color:#8a1c15; font-weight:700; }
.run-cost { margin-left:auto; color:var(--muted); font-weight:500; }
.key { margin:6px 0 10px; content-visibility:auto; contain-intrinsic-size:auto 72px; }
#tree > li { content-visibility:auto; contain-intrinsic-size:auto 40px; }
.chain {
  font-family: ui-monospace, monospace;
  font-size:12.5px;
  background:#f7f8fa;
  border:1px solid var(--line);
  border-radius:6px;
  padding:4px 8px;
  overflow-wrap:anywhere;
}
.key-name { font-weight:700; margin-right:6px; }
ul.tree, ul.tree ul, ul.lanes { list-style:none; margin:0; padding-left: 22px; }
ul.tree { padding-left: 0; } ul.lanes { padding-left: 10px; }
ul.tree ul { border-left:1px dashed #cfd5dc; margin-left:10px; }
.row {
  display:flex;
  flex-wrap:wrap;
  gap:10px;
  align-items:baseline;
  padding:5px 8px;
  border-bottom:1px solid var(--line);
  background:var(--card);
}
.row.current, .inbox-entry.current { background:#fff7df; box-shadow: inset 3px 0 0 var(--warn); }
.row .id { font-weight:600; min-width: 38px; color:var(--muted); }
.row .name a { color: var(--fg); font-weight:500; text-decoration:none; }
.row .name a:hover { text-decoration:underline; }
.chip { font-size:12px; padding:1px 8px; border-radius:10px; background:#eef1f4; white-space:nowrap; }
.activity-working { background:#dff5e3; }
.activity-needs-you { background:#ffd08a; font-weight:600; }
.activity-idle { background:#e5ecff; }
.activity-starting { background:#f0eaff; }
.activity-failed-to-start, .activity-failed { background:#ffd6d6; color:#8a1c15; font-weight:600; }
.activity-host-lost { background:#ffe3c2; color:#7a3f00; font-weight:600; }
.activity-stopped, .activity-archived { background:#eceff1; color: var(--muted); }
.report-done { color:var(--good); }
.report-blocked { color:var(--warn); }
.report-failed { color:var(--bad); }
.report-none { color:var(--muted); }
.badge {
  font-size:12px;
  font-weight:600;
  padding:1px 7px;
  border-radius:4px;
  border:1px solid currentColor;
  text-decoration:none;
}
.verdict-WOWED, .verdict-PASS { color:var(--good); }
.verdict-IMPRESSED { color:var(--accent); }
.verdict-NOT_YET, .verdict-DEFECTS { color:var(--bad); }
.stale { border-style:dashed; } .stale-mark { color:var(--bad); font-size:12px; font-weight:600; margin-left:4px; }
.muted { color: var(--muted); font-size: 12px; }
.continues { color:#7a4fc2; font-size:12px; }
.empty { padding:6px 2px; }
.facts { display:flex; flex-wrap:wrap; gap:10px; align-items:baseline; margin-bottom:6px; }
.grid { display:grid; grid-template-columns: minmax(0,1fr) minmax(0,1fr); gap:18px; }
@media (max-width: 1000px) { .grid { grid-template-columns: 1fr; }
}
.chain-line, .worktree { margin:4px 0; overflow-wrap:anywhere; }
.chain-line [data-chain] { font-family: ui-monospace, monospace; font-size:12.5px; }
.report-card {
  background:var(--card);
  border:1px solid var(--line);
  border-radius:8px;
  padding:8px 12px;
  margin:8px 0;
}
.report-card header { all:unset; display:flex; gap:10px; align-items:baseline; }
.report-card.status-done { border-left:4px solid var(--good); }
.report-card.status-blocked { border-left:4px solid var(--warn); }
.report-card.status-failed { border-left:4px solid var(--bad); }
.verdict { margin:6px 0; display:flex; flex-wrap:wrap; gap:4px 10px; align-items:baseline; }
.verdict .defects { flex-basis:100%; }
.defects { margin:4px 0 0; padding-left:22px; }
.defects li { margin:2px 0; overflow-wrap:anywhere; }
.md { overflow-wrap:anywhere; }
.md pre.code { background:#f3f4f6; padding:8px; border-radius:6px; overflow:auto; }
.md code { background:#f3f4f6; padding:0 4px; border-radius:3px; }
.md h3, .md h4, .md h5 { margin:8px 0 4px; } .md p { margin:4px 0; }
details.fold {
  background:var(--card);
  border:1px solid var(--line);
  border-radius:8px;
  padding:6px 12px;
  margin:8px 0;
}
details.fold summary { cursor:pointer; font-weight:600; }
pre.contract { white-space:pre-wrap; font-size:12px; }
pre.transcript {
  background:var(--card);
  border:1px solid var(--line);
  border-radius:8px;
  padding:10px;
  max-height:60vh;
  overflow:auto;
  white-space:pre-wrap;
  overflow-wrap:anywhere;
  margin:0;
}
.tool-name { font-weight:600; color:var(--fg); }
.tool-main { background:#f3f4f6; color:var(--fg); padding:0 4px; border-radius:3px; }
.tool-field { padding-left:2em; }
.t-user { color:#2457c5; }
.t-assistant { color:#1d2125; }
.t-stderr, .t-error { color:#b3261e; }
.t-system, .t-tool { color: var(--muted); }
form.composer { display:flex; gap:8px; margin-top:10px; } form.composer textarea { flex:1; min-height:52px; }
.actions { display:flex; gap:14px; align-items:center; flex-wrap:wrap; }
.actions .reap { margin-left:auto; padding-left:18px; border-left:1px solid var(--line); }
button.danger { border-color:var(--bad); color:var(--bad); font-weight:600; }
.confirm { border-left:4px solid var(--bad); } .confirm p { margin:0 0 8px; font-weight:500; overflow-wrap:anywhere; }
.start summary { cursor:pointer; font-weight:600; } .start-forms { display:flex; flex-wrap:wrap; gap:24px; }
.start-form { display:flex; flex-wrap:wrap; gap:8px 12px; align-items:center; flex:1; min-width:420px; }
.start-form h3 { flex-basis:100%; margin:8px 0 0; }
.start-form .wide { flex-basis:100%; display:flex; gap:8px; } .start-form textarea { flex:1; }
.start-result { margin:8px 0 0; overflow-wrap:anywhere; }
.archived-run { border-style:dashed; } .hidden-note { margin:4px 0; }
.needs { border-left:4px solid var(--warn); }
pre.diff-stat, pre.diff-patch {
  background:var(--card);
  border:1px solid var(--line);
  border-radius:6px;
  padding:8px;
  overflow:auto;
  font-size:12px;
  margin:6px 0;
}
pre.diff-patch { max-height:50vh; }
.diff-patch .add { color:var(--good); }
.diff-patch .del { color:var(--bad); }
.diff-patch .hunk { color:#7a4fc2; }
.more { font-weight:500; }
.error { color:var(--bad); }
`
