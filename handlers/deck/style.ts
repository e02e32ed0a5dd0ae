export const STYLE = `
:root { --fg:#1d2125; --muted:#6b7580; --line:#e3e6ea; --bg:#fafbfc; --accent:#2457c5; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, sans-serif; color: var(--fg); background: var(--bg); margin: 0; }
header { display:flex; gap:16px; align-items:center; padding:10px 18px; background:#fff; border-bottom:1px solid var(--line); }
header h1 { font-size:16px; margin:0; }
header nav a { margin-right:12px; color: var(--accent); text-decoration:none; }
main { padding: 14px 18px; }
.filters { display:flex; gap:10px; margin-bottom:10px; align-items:center; }
.costs { color: var(--muted); margin-bottom: 8px; }
ul.tree, ul.tree ul { list-style:none; margin:0; padding-left: 20px; }
ul.tree { padding-left: 0; }
.row { display:flex; flex-wrap:wrap; gap:10px; align-items:baseline; padding:5px 8px; border-bottom:1px solid var(--line); background:#fff; }
.row .id { font-weight:600; min-width: 38px; }
.row .name a { color: var(--fg); }
.chip { font-size:12px; padding:1px 7px; border-radius:10px; background:#eef1f4; }
.activity-working { background:#dff5e3; } .activity-needs-you { background:#ffe3b8; } .activity-idle { background:#e5ecff; }
.activity-failed-to-start { background:#ffd6d6; } .activity-stopped, .activity-archived { background:#eceff1; color: var(--muted); }
.badge { font-size:12px; font-weight:600; padding:1px 7px; border-radius:4px; border:1px solid currentColor; text-decoration:none; }
.verdict-WOWED, .verdict-PASS { color:#167a2e; } .verdict-IMPRESSED { color:#2457c5; } .verdict-NOT_YET, .verdict-DEFECTS { color:#b3261e; }
.stale { text-decoration: line-through; opacity: .7; }
.muted { color: var(--muted); font-size: 12px; }
.continues { color:#7a4fc2; font-size:12px; }
pre.transcript { background:#fff; border:1px solid var(--line); padding:10px; max-height:55vh; overflow:auto; white-space:pre-wrap; }
.t-user { color:#2457c5; } .t-assistant { color:#1d2125; } .t-stderr, .t-error { color:#b3261e; } .t-system, .t-tool { color: var(--muted); }
form.composer { display:flex; gap:8px; margin-top:10px; } form.composer textarea { flex:1; min-height:48px; }
.panel { background:#fff; border:1px solid var(--line); padding:10px; margin:10px 0; }
.needs { border-color:#f0a020; }
.error { color:#b3261e; }
`
