import { BANKS } from './ledger';

/**
 * The pages a person sees at /oauth/2.0/authorize. At KFTC these are several web screens where the person proves who
 * they are (휴대폰 본인인증 or a certificate), agrees to the terms and to third-party information sharing, and
 * registers an account with the bank's 출금동의 (ARS/SMS/written). Little of that can be emulated: here a person "is"
 * whoever types a name and birth date matching an account's holder, their phone number stands for the phone
 * authentication (the sandbox's identity agency gives the CI it gave that name, birth date and phone), and one button
 * stands for every agreement. What is
 * emulated is what the institution sees: the parameters it sent, and the redirect back with a code or an error.
 */
export interface ConsentForm {
  /** The authorize request's own parameters, posted back unchanged as hidden fields. */
  request: Record<string, string>;
  /** What the person typed, when the page is shown again. */
  typed?: { name?: string; birth_date?: string; phone?: string; bank_code?: string; account_num?: string };
  problem?: string;
}

export function consentPage({ request, typed = {}, problem }: ConsentForm): string {
  const hidden = Object.entries(request)
    .map(([name, value]) => `<input type="hidden" name="${escape(name)}" value="${escape(value)}">`)
    .join('\n    ');
  const banks = Object.entries(BANKS)
    .map(
      ([code, name]) =>
        `<option value="${code}"${code === typed.bank_code ? ' selected' : ''}>${code} ${name}</option>`,
    )
    .join('');
  return page(
    '오픈뱅킹 사용자인증',
    `${problem ? `<p class="problem">${escape(problem)}</p>` : ''}
  <form method="post" action="authorize">
    ${hidden}
    <label>이름 <input name="name" value="${escape(typed.name ?? '')}" required></label>
    <label>생년월일 (YYYYMMDD) <input name="birth_date" value="${escape(typed.birth_date ?? '')}" pattern="[0-9]{8}" required></label>
    <label>휴대폰번호 <input name="phone" value="${escape(typed.phone ?? '')}" pattern="[0-9-]{10,13}" required></label>
    <label>은행 <select name="bank_code">${banks}</select></label>
    <label>계좌번호 <input name="account_num" value="${escape(typed.account_num ?? '')}" pattern="[0-9]{10,14}" required></label>
    <p>조회 및 출금이체에 동의합니다 (scope: ${escape(request.scope ?? '')}).</p>
    <button name="action" value="approve">동의하고 계좌 등록</button>
    <button name="action" value="deny" formnovalidate>취소</button>
  </form>`,
  );
}

/** The page for an authorize request that cannot go back to its redirect_uri (unknown client, not response_type=code…). */
export const refusalPage = (problem: string): string =>
  page('오픈뱅킹 사용자인증 오류', `<p class="problem">${escape(problem)}</p>`);

const page = (title: string, content: string) => `<!doctype html>
<html lang="ko">
<head><meta charset="utf-8"><title>${title}</title>
<style>body{font-family:sans-serif;max-width:28rem;margin:2rem auto}label{display:block;margin:.5rem 0}.problem{color:#b00}</style>
</head>
<body>
  <h1>${title}</h1>
  ${content}
</body>
</html>
`;

const escape = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
