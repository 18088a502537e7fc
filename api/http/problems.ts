/** Typed HTTP errors; the error middleware renders them once, per path family (problem+json or envelope). */
export interface FieldError {
  in: 'body' | 'header' | 'path' | 'query';
  pointer: string;
  detail: string;
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    readonly title: string,
    readonly detail?: string,
    readonly errors?: FieldError[],
    readonly headers: Record<string, string> = {},
    /** The caller presented a credential that is wrong (not merely one of an inactive user): counted per address. */
    readonly credentialRefused = false,
    /** RFC 9457 extension members: what a rule allows and when it resets, say. */
    readonly extensions: Record<string, unknown> = {},
  ) {
    super(detail ?? title);
    this.name = 'HttpError';
  }
}

export const CONTACT_REPRESENTATIVE =
  'Something went wrong on our side. Please contact a representative. / 일시적인 오류가 발생했습니다. 담당자에게 문의해 주세요.';

export const problems = {
  validation: (errors: FieldError[], where = 'request') =>
    new HttpError(
      400,
      'validation-error',
      'Request validation failed',
      `The ${where} does not match the documented schema`,
      errors,
    ),
  badHeader: (header: string, detail: string) =>
    new HttpError(400, 'validation-error', 'Request validation failed', detail, [
      { in: 'header', pointer: `/${header.toLowerCase()}`, detail },
    ]),
  /** No usable credential at all (missing, not in the form asked, or one of ours that expired): not counted as a wrong one. */
  unauthorized: (detail: string, type = 'unauthorized') =>
    new HttpError(401, type, 'Authentication required', detail, undefined, { 'www-authenticate': 'Bearer' }),
  /** A credential that is wrong, expired or revoked: counted per client address (rule failed-credentials). */
  invalidCredential: (type: string, detail: string) =>
    new HttpError(401, type, 'Invalid credential', detail, undefined, {}, true),
  /** The token is valid but its user is suspended, closed or gone: one problem wherever it is checked. */
  inactiveUser: () =>
    new HttpError(401, 'invalid-token', 'Invalid credential', 'The access token does not belong to an active user'),
  /** A network id the registry does not know: one problem for every route that takes one. */
  unknownNetwork: (networkId: string, supported: string[]) =>
    new HttpError(
      404,
      'unknown-network',
      'Unknown network',
      `Network ${networkId} is not supported; supported: ${supported.join(', ')}`,
    ),
  forbidden: (detail: string) => new HttpError(403, 'forbidden', 'Forbidden', detail),
  /** A pass token that is not the one of the registration or sign-in it names: a guess, counted per address. */
  wrongPassToken: (detail: string) => new HttpError(403, 'forbidden', 'Forbidden', detail, undefined, {}, true),
  forbiddenAs: (type: string, detail: string, extensions?: Record<string, unknown>) =>
    new HttpError(403, type, 'Forbidden', detail, undefined, undefined, false, extensions),
  /** A risky action from a device still in its new-device hold (issue 24): when it ends, and how to approve it now. */
  deviceOnHold: (until: Date, action: string) =>
    new HttpError(
      403,
      'device-on-hold',
      'New device on hold',
      `This device signed in without a passkey the account trusts (by ID card, or by a passkey still in its own hold); until ${until.toISOString()} it cannot ${action}, unless a passkey registered before the sign-in releases it (POST /v1/account/devices/{deviceId}/release)`,
      undefined,
      undefined,
      false,
      { holdUntil: until.toISOString() },
    ),
  notFound: (what: string) => new HttpError(404, 'not-found', 'Not found', `${what} was not found`),
  conflict: (type: string, detail: string, headers?: Record<string, string>) =>
    new HttpError(409, type, 'Conflict', detail, undefined, headers),
  gone: (type: string, detail: string) => new HttpError(410, type, 'Gone', detail),
  tooLarge: (detail: string) => new HttpError(413, 'payload-too-large', 'Payload too large', detail),
  unsupportedMedia: (detail: string) => new HttpError(415, 'unsupported-media-type', 'Unsupported media type', detail),
  unprocessable: (type: string, detail: string, extensions?: Record<string, unknown>) =>
    new HttpError(422, type, 'Unprocessable request', detail, undefined, undefined, false, extensions),
  badGateway: (detail: string) => new HttpError(502, 'provider-error', 'Upstream provider error', detail),
  /** A method the path does not have: 405 with the methods it does have in Allow. */
  methodNotAllowed: (method: string, allow: string[]) =>
    new HttpError(
      405,
      'method-not-allowed',
      'Method not allowed',
      `${method} is not supported here; allowed: ${allow.join(', ')}`,
      undefined,
      { allow: allow.join(', ') },
    ),
  unavailable: (detail: string) =>
    new HttpError(503, 'service-unavailable', 'Service unavailable', detail, undefined, { 'retry-after': '5' }),
  internal: () => new HttpError(500, 'internal-error', 'Internal server error', CONTACT_REPRESENTATIVE),
};
