import type { Context } from 'koa';
import { Type, type Static, type TObject, type TSchema } from '@sinclair/typebox';
import type { RateRuleName } from './rate-limits';
import type { Approval, StepUpPolicy } from './step-up';
import type { ScreeningContext } from '../compliance/screening';

/**
 * A route is data: method, path, schemas for each part of the request and each response, and a handler.
 * One table feeds the router (api/http/router.ts), the validator and the OpenAPI document (api/http/openapi.ts).
 */
export type AuthMode = 'none' | 'bearer' | 'apiKey' | 'passToken' | 'operator';

export interface ResponseSpec {
  description: string;
  schema?: TSchema;
  headers?: Record<string, { description: string; schema: TSchema }>;
}

export interface UploadedFile {
  fieldName: string;
  originalName: string;
  mimeType: string;
  size: number;
  buffer: Buffer;
}

/** The device session an access token was issued to: how it signed in, and until when its risky actions are held. */
export interface DeviceSession {
  signInMethod: 'registration' | 'passkey' | 'id_card';
  signedInAt: Date;
  holdUntil: Date | null;
  /** Whether the user has a passkey (read with the session: the profile's two-factor methods). */
  hasPasskey: boolean;
}
/** The caller of a Bearer route: the token's user, device and session (`sid`; none in tokens issued before devices existed). */
export interface AuthenticatedUser {
  userId: string;
  deviceId: string;
  sessionId?: string;
  session?: DeviceSession;
}

/**
 * Who is calling, by the route's auth mode: a Bearer route's handler always has its user, an operator route's its
 * operator's name (the router authenticated them before the handler runs); other routes have neither.
 */
export type Caller<A extends AuthMode> = A extends 'bearer'
  ? { user: AuthenticatedUser; operator?: undefined }
  : A extends 'operator'
    ? { operator: string; user?: undefined }
    : { user?: undefined; operator?: undefined };

export type RouteInput<
  P extends TSchema,
  Q extends TSchema,
  H extends TSchema,
  B extends TSchema,
  A extends AuthMode = AuthMode,
> = {
  params: Static<P>;
  query: Static<Q>;
  headers: Static<H>;
  body: Static<B>;
  file?: UploadedFile;
  /** How the route's step-up was approved (api/http/step-up.ts), when its policy needs a proof the router checks. */
  approval?: Approval;
  /**
   * A policy's proof the handler checks itself (`checkedBy`): calling this checks the request's proof against the
   * policy, as the router would, when the handler finds the request is the sensitive kind (the first owner key).
   */
  stepUp?: () => Promise<Approval>;
} & Caller<A>;

export interface RouteResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface MultipartSpec {
  /** Text fields of the form, validated like a JSON body. */
  fields: TObject;
  /** The single file part. */
  file: { field: string; maxBytes: number; contentTypes: readonly string[] };
  /** How the whole form appears in the OpenAPI document. */
  documentAs: TSchema;
  /** The form as the document's example shows it (the file part as a note on what to attach). */
  example: Record<string, string>;
}

export interface RouteSpec<
  P extends TSchema = TSchema,
  Q extends TSchema = TSchema,
  H extends TSchema = TSchema,
  B extends TSchema = TSchema,
  A extends AuthMode = AuthMode,
> {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** Koa style (`/v1/things/:id`); the OpenAPI document shows `{id}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  auth: A;
  /**
   * `false` for a route that reads no credential of any kind (health, documents, public keys): its refusals are never
   * counted as failed credentials.
   */
  credentials?: false;
  /**
   * The step-up of a sensitive action (api/http/step-up.ts): the proof it needs beyond the access token, whether a
   * device in its new-device hold is refused (403 device-on-hold), and how the person is told. The router enforces
   * the hold once the path is valid and the proof before the handler runs.
   */
  stepUp?: StepUpPolicy<RouteInput<P, Q, H, B, A>>;
  /**
   * The sanctions screening the route's handler does (api/compliance/screening.ts), so the OpenAPI document lists its
   * refusals (422 recipient-sanctioned, 503 screening-unavailable); a screening of any other context in one of its
   * requests is an error of the code.
   */
  screens?: ScreeningContext;
  /**
   * Request limits, counted once the caller is authenticated and the path, query and headers are valid, before the
   * body is read (an upload over its limit is not even parsed): each rule counts one request for the key.
   */
  rateLimits?: Array<{
    rule: RateRuleName;
    key: (input: Omit<RouteInput<P, Q, H, B, A>, 'body' | 'file'>, ctx: Context) => string;
  }>;
  /** Idempotency-Key handling (IETF draft); `scope` names the caller the key belongs to. */
  idempotency?: { required: boolean; scope: (input: RouteInput<P, Q, H, B, A>) => string };
  /**
   * A deprecated operation (CHANGELOG.md, "Versioning and deprecation policy"): it keeps working until `sunset`, and
   * every answer says so (Deprecation, RFC 9745; Sunset, RFC 8594; Link rel="successor-version" to `successor`).
   */
  deprecated?: { since: Date; sunset: Date; successor?: string };
  params?: P;
  query?: Q;
  headers?: H;
  body?: B;
  /** Accept multipart/form-data as well as (or instead of) a JSON body. */
  multipart?: MultipartSpec;
  responses: Record<number, ResponseSpec>;
  handler: (input: RouteInput<P, Q, H, B, A>, ctx: Context) => Promise<RouteResult>;
}

/** Keeps the handler's input typed from the schemas. */
export const defineRoute = <
  P extends TSchema,
  Q extends TSchema,
  H extends TSchema,
  B extends TSchema,
  A extends AuthMode,
>(
  spec: RouteSpec<P, Q, H, B, A>,
): RouteSpec => spec as unknown as RouteSpec;

/** The Location header of an answer that names where its resource is read: the one created (201), the work to poll (202). */
export const LOCATION_HEADER = {
  location: {
    description: 'Where the resource is read (GET): the one created, or the accepted work to poll',
    schema: Type.String(),
  },
};

export const usesEnvelope = (path: string): boolean => path.startsWith('/api/');
