/** A self-contained docs page (no CDN: the service may run without internet) that renders /openapi.json. */
export const DOCS_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Wallet service API</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1d2330;background:#f6f7fb}
header{background:#1d2330;color:#fff;padding:16px 24px}main{max-width:1100px;margin:auto;padding:16px 24px}
.op{background:#fff;border:1px solid #dde1ea;border-radius:8px;margin:10px 0}
.op>summary{padding:10px 14px;cursor:pointer;list-style:none;display:flex;gap:12px;align-items:center}
.m{font-weight:700;text-transform:uppercase;width:56px;text-align:center;border-radius:4px;color:#fff;padding:2px 0;font-size:12px}
.get{background:#2f7d4f}.post{background:#2c5ea8}.put{background:#a8742c}.delete{background:#a83232}
.path{font-family:ui-monospace,monospace}.sum{color:#5b6476}.body{padding:0 14px 14px}
pre{background:#f0f2f7;padding:10px;border-radius:6px;overflow:auto;font-size:12px}h3{margin:14px 0 4px;font-size:14px}
</style></head><body><header><h1 style="margin:0;font-size:20px">Wallet service API</h1>
<div id="desc"></div><a style="color:#9cc2ff" href="/openapi.json">openapi.json</a></header><main id="ops">Loading…</main>
<script>
fetch('/openapi.json').then(r=>r.json()).then(doc=>{
  const esc=s=>String(s).replace(/[&<>]/g,c=>({'&':'&amp;','<':'&lt;','>':'&gt;'}[c]));
  document.getElementById('desc').textContent=doc.info.description||'';
  const out=[];
  for(const [path,ops] of Object.entries(doc.paths)) for(const [method,op] of Object.entries(ops)){
    const params=(op.parameters||[]).map(p=>'<li><code>'+esc(p.name)+'</code> ('+p.in+(p.required?', required':'')+') '+esc(p.description||'')+'</li>').join('');
    const body=op.requestBody?'<h3>Request body</h3><pre>'+esc(JSON.stringify(op.requestBody.content,null,2))+'</pre>':'';
    const res=Object.entries(op.responses).map(([s,r])=>'<h3>'+s+' '+esc(r.description)+'</h3>'+(r.content&&r.content['application/json']?'<pre>'+esc(JSON.stringify(r.content['application/json'].schema,null,2))+'</pre>':'')).join('');
    out.push('<details class="op"><summary><span class="m '+method+'">'+method+'</span><span class="path">'+esc(path)+'</span><span class="sum">'+esc(op.summary||'')+'</span></summary><div class="body">'+(op.description?'<p>'+esc(op.description)+'</p>':'')+(params?'<h3>Parameters</h3><ul>'+params+'</ul>':'')+body+res+'</div></details>');
  }
  document.getElementById('ops').innerHTML=out.join('');
});
</script></body></html>`;
