/** The operator's sign-in page (GET /codec/login): the session cookie the Temporal UI's codec calls then carry. */
export const LOGIN_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Operator sign-in</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem}input{width:100%;padding:.5rem;font:inherit}button{margin-top:.75rem;padding:.5rem 1rem;font:inherit}#result{margin-top:1rem}</style>
</head><body>
<h1>Operator sign-in</h1>
<p>For the Temporal UI's codec: once signed in here, set the UI's codec endpoint to this service's <code>/codec</code> with
"Include cross-origin credentials" on, and workflow payloads are shown decoded, personal data redacted.</p>
<form id="signin"><label for="token">Operator token</label><input id="token" name="token" type="password" autocomplete="off" required>
<button type="submit">Sign in</button></form>
<p id="result" role="status"></p>
<script>
document.getElementById('signin').addEventListener('submit', async (event) => {
  event.preventDefault();
  const result = document.getElementById('result');
  const answer = await fetch('/codec/session', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: document.getElementById('token').value }) });
  const body = await answer.json().catch(() => ({}));
  result.textContent = answer.ok ? 'Signed in as ' + body.operator + ' until ' + body.expiresAt : 'Not signed in: ' + (body.detail || answer.status);
});
</script>
</body></html>
`;
