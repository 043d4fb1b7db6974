// The console's one stylesheet and one script, served from /console/assets/ (kept as
// strings so the build needs no copy step). The pages work without the script: it adds
// copy buttons, confirmations and live progress of a running job.
import { createHash } from 'node:crypto';

export const CONSOLE_CSS = `
:root{--fg:#1b1f24;--muted:#57606a;--bg:#fff;--panel:#f6f8fa;--line:#d0d7de;--accent:#0a58ca;--accent-fg:#fff;--bad:#b42318;--good:#1a7f37;--warn:#9a6700;
font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg);line-height:1.5}
*{box-sizing:border-box}body{margin:0}a{color:var(--accent)}a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,summary:focus-visible{outline:3px solid #f9a825;outline-offset:2px}
.skip{position:absolute;left:-9999px}.skip:focus{left:1rem;top:1rem;background:var(--bg);padding:.5rem;z-index:9}
header.top{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1.25rem;padding:.75rem 1.25rem;border-bottom:1px solid var(--line);background:var(--panel)}
header.top .brand{font-weight:700;font-size:1.1rem;color:var(--fg);text-decoration:none}
nav.main{display:flex;flex-wrap:wrap;gap:.25rem .9rem}nav.main a{text-decoration:none;padding:.2rem 0;border-bottom:2px solid transparent;color:var(--fg)}
nav.main a[aria-current=page]{border-color:var(--accent);font-weight:600}
header.top .who{margin-left:auto;display:flex;align-items:center;gap:.5rem;color:var(--muted);font-size:.9rem;flex-wrap:wrap}
main{max-width:70rem;margin:0 auto;padding:1.25rem}
h1{font-size:1.5rem;margin:.25rem 0 1rem}h2{font-size:1.15rem;margin:1.5rem 0 .5rem}
.muted{color:var(--muted)}.small{font-size:.875rem}
.panel{background:var(--panel);border:1px solid var(--line);border-radius:8px;padding:1rem;margin:1rem 0}.panel>:first-child{margin-top:0}.panel>:last-child{margin-bottom:0}
.notice{border-left:4px solid var(--accent)}.notice.bad{border-color:var(--bad)}.notice.good{border-color:var(--good)}
.table-wrap{overflow-x:auto}table{border-collapse:collapse;width:100%;font-size:.925rem}
th,td{text-align:left;padding:.45rem .6rem;border-bottom:1px solid var(--line);vertical-align:top}th{font-weight:600;background:var(--panel)}
code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.875rem}
pre{background:var(--panel);border:1px solid var(--line);border-radius:6px;padding:.75rem;overflow:auto;max-height:28rem;white-space:pre-wrap;word-break:break-word}
form.inline{display:inline}form.stack{display:grid;gap:.75rem;max-width:26rem}form.stack.wide{max-width:none}
fieldset{border:1px solid var(--line);border-radius:6px;padding:.5rem .75rem}legend{font-weight:600;font-size:.9rem}label.check{font-weight:400;display:inline-flex;gap:.35rem;align-items:center}
.code{position:relative}.code button{margin-bottom:.75rem}.results{display:grid;gap:0 1.5rem}@media (min-width:64rem){.results{grid-template-columns:1fr 1fr}}.results>section{min-width:0}.rendered{border:1px solid #d0d7de;border-radius:6px;padding:0 1rem;max-height:40rem;overflow:auto;overflow-wrap:anywhere}.rendered img{max-width:100%}.rendered table{border-collapse:collapse}.rendered th,.rendered td{border:1px solid #d0d7de;padding:.25rem .5rem}
input[type=url]{width:100%}
textarea{font:inherit;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.875rem;width:100%;padding:.45rem .55rem;border:1px solid #8c959f;border-radius:6px}
nav.tabs-nav{display:flex;flex-wrap:wrap;gap:.25rem;border-bottom:1px solid var(--line);margin:0 0 1rem}nav.tabs-nav a{padding:.4rem .9rem;text-decoration:none;border:1px solid transparent;border-bottom:none;border-radius:6px 6px 0 0;color:var(--fg)}
nav.tabs-nav a[aria-current=page]{border-color:var(--line);background:var(--bg);font-weight:600;margin-bottom:-1px}
[role=tablist]{display:flex;gap:.25rem;border-bottom:1px solid var(--line);margin-bottom:.5rem}[role=tab]{background:none;color:var(--fg);border:1px solid transparent;border-bottom:none;border-radius:6px 6px 0 0}
[role=tab][aria-selected=true]{border-color:var(--line);font-weight:600;margin-bottom:-1px;background:var(--bg)}.tabs.live .tab-heading{position:absolute;left:-9999px}
details.events>summary,details.event-group>summary{cursor:pointer}details.events>summary h2{display:inline;font-size:1.15rem}details.events{margin:1.5rem 0}details.event-group{margin:.35rem 0 .35rem 1rem}
ol.steps{padding-left:1.25rem}ol.steps li{margin:.4rem 0}ol.links{padding-left:1.5rem;max-height:30rem;overflow:auto;word-break:break-all}a.button.secondary-link{background:#fff;color:var(--accent)}
.row{display:flex;flex-wrap:wrap;gap:.75rem;align-items:flex-end}
label{display:block;font-weight:600;font-size:.9rem;margin-bottom:.2rem}
input[type=text],input[type=email],input[type=password],input[type=url],select{font:inherit;padding:.45rem .55rem;border:1px solid #8c959f;border-radius:6px;min-width:12rem;max-width:100%;background:#fff;color:var(--fg)}
button,.button{font:inherit;cursor:pointer;border-radius:6px;padding:.45rem .9rem;border:1px solid var(--accent);background:var(--accent);color:var(--accent-fg);text-decoration:none;display:inline-block}
button.secondary{background:#fff;color:var(--accent)}button.danger{background:#fff;color:var(--bad);border-color:var(--bad)}
button.link{background:none;border:none;color:var(--accent);padding:0;text-decoration:underline}
.actions{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center}.actions select{min-width:6.5rem}.secret{display:flex;gap:.5rem;align-items:center;flex-wrap:wrap}.secret code{background:#fff;border:1px solid var(--line);padding:.35rem .5rem;border-radius:6px;word-break:break-all}
.badge{display:inline-block;padding:.05rem .5rem;border-radius:999px;font-size:.8rem;font-weight:600;border:1px solid currentColor}
.badge-completed,.badge-active{color:var(--good)}.badge-failed,.badge-revoked,.badge-disabled,.badge-cancelled{color:var(--bad)}.badge-processing,.badge-pending,.badge-skipped{color:var(--warn)}.badge-deleted{color:var(--muted)}
pre.diff .add{color:var(--good)}pre.diff .del{color:var(--bad)}pre.diff .hunk,pre.diff .head{color:var(--muted)}details>summary{cursor:pointer;word-break:break-all}
progress,meter{width:100%;max-width:24rem;height:1rem}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(14rem,1fr));gap:1rem}
.card{border:1px solid var(--line);border-radius:8px;padding:1rem}.card .big{font-size:1.6rem;font-weight:700}
ol.timeline{list-style:none;padding:0;margin:0;border-left:2px solid var(--line)}ol.timeline li{padding:.35rem 0 .35rem 1rem;position:relative}
ol.timeline li::before{content:"";position:absolute;left:-6px;top:.8rem;width:10px;height:10px;border-radius:50%;background:var(--accent)}
img.shot{max-width:100%;height:auto;border:1px solid var(--line)}svg.chart{width:100%;max-width:48rem;height:auto}svg.chart text{font-size:10px;fill:var(--muted)}
.auth{max-width:28rem;margin:2rem auto}.err{color:var(--bad);font-weight:600}
.api-op code,nav.panel a{word-break:break-all}.api-op{border:1px solid var(--line);border-radius:8px;margin:.75rem 0;padding:.5rem .75rem}.api-op summary{cursor:pointer}
.method{display:inline-block;min-width:4.2rem;font-weight:700;font-family:ui-monospace,monospace}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:0}dl.facts dt{font-weight:600}dl.facts dd{margin:0;word-break:break-word}
@media (max-width:40rem){main{padding:.75rem}header.top{padding:.5rem .75rem;gap:.35rem .75rem}header.top .who{margin-left:auto;font-size:.8rem}header.top .who .email{display:none}
nav.main{order:3;width:100%;flex-wrap:nowrap;overflow-x:auto;gap:.9rem;font-size:.9rem;padding:0 1.5rem .15rem 0;scrollbar-width:none;-webkit-mask-image:linear-gradient(to right,#000 88%,transparent);mask-image:linear-gradient(to right,#000 88%,transparent)}nav.main a{white-space:nowrap}
header.top .who button{padding:.25rem .6rem;font-size:.85rem}h1{font-size:1.3rem}nav.tabs-nav{gap:0}nav.tabs-nav a{padding:.35rem .55rem}
th,td{padding:.35rem .4rem}
table.stack thead{position:absolute;left:-9999px}table.stack tr{display:block;border-bottom:1px solid var(--line);padding:.4rem 0}
table.stack td{display:block;position:relative;min-height:1.6rem;border:none;padding:.2rem .25rem .2rem 7.75rem;word-break:break-word}table.stack td::before{content:attr(data-label);position:absolute;left:.25rem;width:7rem;font-weight:600;color:var(--muted);font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;font-size:.9rem}input[type=text],input[type=email],input[type=password],select{min-width:0;width:100%}.row>*{flex:1 1 100%}}
`;

export const CONSOLE_JS = `
(function(){
  'use strict';
  document.querySelectorAll('[data-copy]').forEach(function(btn){
    btn.hidden = false;
    btn.addEventListener('click', function(){
      var target = document.getElementById(btn.getAttribute('data-copy'));
      if (!target || !navigator.clipboard) return;
      navigator.clipboard.writeText(target.textContent.trim()).then(function(){
        var was = btn.textContent; btn.textContent = 'Copied'; setTimeout(function(){ btn.textContent = was; }, 1500);
      });
    });
  });
  document.querySelectorAll('form[data-confirm]').forEach(function(form){
    form.addEventListener('submit', function(e){ if (!window.confirm(form.getAttribute('data-confirm'))) e.preventDefault(); });
  });
  document.querySelectorAll('[data-tabs]').forEach(function(box){
    var list = box.querySelector('[role=tablist]'); if (!list) return;
    var tabs = Array.prototype.slice.call(list.querySelectorAll('[role=tab]'));
    var show = function(tab, focus){
      tabs.forEach(function(t){
        var on = t === tab; t.setAttribute('aria-selected', on ? 'true' : 'false'); t.tabIndex = on ? 0 : -1;
        var panel = document.getElementById(t.getAttribute('aria-controls')); if (panel) panel.hidden = !on;
      });
      if (focus) tab.focus();
    };
    list.hidden = false; box.classList.add('live');
    tabs.forEach(function(t, i){
      t.addEventListener('click', function(){ show(t, false); });
      t.addEventListener('keydown', function(e){
        var next = e.key === 'ArrowRight' ? tabs[(i + 1) % tabs.length] : e.key === 'ArrowLeft' ? tabs[(i + tabs.length - 1) % tabs.length] : null;
        if (next) { e.preventDefault(); show(next, true); }
      });
    });
    show(tabs[0], false);
  });
  document.querySelectorAll('form[data-busy]').forEach(function(form){
    form.addEventListener('submit', function(e){
      if (e.submitter && e.submitter.name === 'preview') return;
      var note = form.querySelector('[data-busy-text]'); if (note) note.textContent = form.getAttribute('data-busy');
      var btn = form.querySelector('button[type=submit]'); if (btn) { setTimeout(function(){ btn.disabled = true; }, 0); }
    });
  });
  var live = document.querySelector('[data-progress-url]');
  if (live) {
    var poll = function(){
      fetch(live.getAttribute('data-progress-url'), { headers: { accept: 'application/json' }, credentials: 'same-origin' })
        .then(function(r){ return r.ok ? r.json() : null; })
        .then(function(p){
          if (!p) return;
          Object.keys(p).forEach(function(k){ var el = live.querySelector('[data-field="' + k + '"]'); if (el) el.textContent = String(p[k]); });
          var bar = live.querySelector('progress'); if (bar && p.totalUrls) { bar.max = p.totalUrls; bar.value = p.completedUrls + p.failedUrls; }
          if (p.done) { window.location.reload(); } else { setTimeout(poll, 2000); }
        }).catch(function(){ setTimeout(poll, 5000); });
    };
    setTimeout(poll, 2000);
  }
})();
`;

const etag = (text: string): string => `"${createHash('sha256').update(text).digest('base64url').slice(0, 16)}"`;
export const ASSETS: Record<string, { body: string; type: string; etag: string }> = {
  'console.css': { body: CONSOLE_CSS, type: 'text/css; charset=utf-8', etag: etag(CONSOLE_CSS) },
  'console.js': { body: CONSOLE_JS, type: 'text/javascript; charset=utf-8', etag: etag(CONSOLE_JS) },
};
