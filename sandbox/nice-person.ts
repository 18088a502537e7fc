/**
 * The person in NICE's standard window, as a browser carries them through it: posts the verification's form to the
 * window, fills in who they are on the sandbox's page, and follows NICE's return to the service's returnurl (which
 * takes the result). What an app's web view does with a real person and a real window.
 */
export interface WindowForm {
  url: string;
  fields: Record<string, string>;
}

export interface SandboxPerson {
  name: string;
  /** YYYY-MM-DD. */
  birthDate: string;
  phone: string;
  residentNumber?: string;
  gender?: 'M' | 'F';
  foreigner?: boolean;
  /** `failure`: the person fails the verification (NICE's result code 0001). */
  outcome?: 'success' | 'failure';
}

/**
 * Answers the service's answer to the return (its status and page), where NICE sent the browser, and the code the
 * service gave that browser for its app (from the page, or from the app link it redirected to).
 */
export async function verifyInNiceWindow(
  window: WindowForm,
  person: SandboxPerson,
): Promise<{ status: number; page: string; returnUrl: string; code?: string }> {
  const opened = await fetch(window.url, { method: 'POST', body: new URLSearchParams(window.fields) });
  const shown = await opened.text();
  if (opened.status !== 200) throw new Error(`NICE's window refused the request: ${opened.status} ${shown}`);
  const session = shown.match(/name="session" value="([0-9a-f]+)"/)?.[1];
  const action = shown.match(/<form method="post" action="([^"]+)"/)?.[1];
  if (!session || !action) throw new Error("NICE's window showed no form");
  const verified = await fetch(new URL(action, window.url), {
    method: 'POST',
    redirect: 'manual',
    body: new URLSearchParams({
      session,
      name: person.name,
      birthDate: person.birthDate,
      phone: person.phone,
      residentNumber: person.residentNumber ?? '',
      gender: person.gender === 'F' ? '0' : '1',
      nationalinfo: person.foreigner ? '1' : '0',
      mobileco: '1',
      outcome: person.outcome ?? 'success',
    }),
  });
  const returnUrl = verified.headers.get('location');
  if (verified.status !== 302 || !returnUrl) throw new Error(`NICE's window did not return: ${verified.status}`);
  const back = await fetch(returnUrl, { redirect: 'manual' });
  const page = await back.text();
  const appLink = back.status === 303 ? back.headers.get('location') : null;
  const code = appLink
    ? (new URL(appLink).searchParams.get('code') ?? undefined)
    : page.match(/id="pass-code" hidden>([A-Za-z0-9_-]+)</)?.[1];
  return { status: back.status, page, returnUrl, code };
}

/**
 * `npm run -s sandbox:verify -- <name> <phone> <YYYY-MM-DD> [residentNumber] < opened.json`: the person verifies in
 * the window of the verification POST /v1/auth/pass/requests opened (its answer on stdin); prints the code the
 * service's return gave the browser (what the page said goes to stderr).
 */
async function main(): Promise<void> {
  const [name, phone, birthDate, residentNumber] = process.argv.slice(2);
  if (!name || !phone || !/^\d{4}-\d{2}-\d{2}$/.test(birthDate ?? '')) {
    console.error('usage: npm run -s sandbox:verify -- <name> <phone> <YYYY-MM-DD> [residentNumber] < opened.json');
    process.exit(2);
  }
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const opened = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { window?: WindowForm };
  if (!opened.window) throw new Error('stdin is not the answer of POST /v1/auth/pass/requests');
  const { status, page, code } = await verifyInNiceWindow(opened.window, {
    name,
    phone,
    birthDate: birthDate!,
    residentNumber,
  });
  const said = page
    .replace(/<code[^>]*>[^<]*<\/code>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  console.error(`${status} ${said}`);
  if (!code) process.exit(1);
  console.log(code);
}

if (require.main === module)
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
