import { defineRoute, type RouteSpec } from '../http/route-table';
import type { BankConsentService } from './consent-service';
import * as S from './schemas';

/**
 * The person's consent at the bank to withdrawals (open banking's OAuth authorization), which charges need: the app
 * starts it and opens `authorization_url`; the bank sends the person back to the return route, which completes it.
 */
export function bankConsentRoutes({ consents }: { consents: BankConsentService }): RouteSpec[] {
  return [
    defineRoute({
      method: 'post',
      path: '/api/v1/bank/consent',
      operationId: 'startBankConsent',
      tags: ['Bank'],
      auth: 'bearer',
      summary: "Start the person's consent at the bank to charges (withdrawals): open authorization_url in a browser",
      description:
        "The open banking centre's screens authenticate the person (their certificate or phone) and list the accounts they allow; the centre then sends them to GET /api/v1/bank/consent/callback, which completes the consent and sends them on to return_uri. Charges need it: POST /api/v1/charge/execute answers 422 bank-consent-required until a connected account is covered.",
      body: S.ConsentStartBody,
      responses: {
        200: { description: 'Where to send the person', schema: S.ConsentStarted },
        422: { description: 'The return address is not registered' },
      },
      handler: async ({ body, user }) => ({ status: 200, body: await consents.start(user.userId, body.return_uri) }),
    }),

    defineRoute({
      method: 'get',
      path: '/api/v1/bank/consent',
      operationId: 'getBankConsent',
      tags: ['Bank'],
      auth: 'bearer',
      summary: "The person's latest consent and the accounts it covers (status none before any)",
      description:
        'Check it before charging, or when the person comes back from the bank: under an `active` consent, a ' +
        'listed account with `withdrawals_agreed` and a `bank_account_id` (a connected account) is a charge ' +
        'source. `failed` and `expired` (the bank stopped honouring it) say why in `failure`: start again with ' +
        'POST /api/v1/bank/consent. Only the latest consent is shown, so one started again reads `pending` until ' +
        'the person completes it, while an earlier active one still covers charges.',
      responses: { 200: { description: 'Consent', schema: S.ConsentView } },
      handler: async ({ user }) => ({ status: 200, body: await consents.view(user.userId) }),
    }),

    defineRoute({
      method: 'get',
      path: '/api/v1/bank/consent/callback',
      operationId: 'returnBankConsent',
      tags: ['Bank'],
      auth: 'none',
      summary:
        'Where the bank sends the person back (the browser follows it; not called by apps): completes the consent its state names',
      description:
        'Registered with the open banking centre as the callback URL (BANK_CONSENT_REDIRECT_URI). With a return_uri the answer is 302 to it, with consent_id and status (active or failed) in its query; without one, the consent as JSON.',
      query: S.ConsentReturnQuery,
      responses: {
        200: { description: 'The consent', schema: S.ConsentView },
        302: { description: 'To the app (return_uri), with consent_id and status' },
        404: { description: 'No consent has this state' },
        409: { description: 'The consent was completed already, or an account it covers is connected by another user' },
        410: { description: 'The consent was not completed in time' },
        422: { description: 'The bank refused the code, or another person than the account holder consented' },
        431: { description: 'The address is longer than the HTTP server reads (16 KiB with the headers)' },
        503: { description: 'The bank is not answering' },
      },
      handler: async ({ query }) => {
        const { view, returnUri } = await consents.complete(query);
        if (!returnUri) return { status: 200, body: view };
        const back = new URL(returnUri);
        back.searchParams.set('consent_id', view.consent_id ?? '');
        back.searchParams.set('status', view.status);
        return { status: 302, headers: { location: back.toString() } };
      },
    }),
  ];
}
