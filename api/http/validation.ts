import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { TSchema } from '@sinclair/typebox';
import { problems, type FieldError } from './problems';

type Part = FieldError['in'];

const makeAjv = (coerceTypes: boolean): Ajv => {
  const ajv = new Ajv({ allErrors: true, coerceTypes, useDefaults: true, strict: false });
  addFormats(ajv);
  ajv.addFormat('binary', true);
  return ajv;
};
// Bodies are JSON and must have the right types; path, query and header values are strings on the wire.
const bodyAjv = makeAjv(false);
const stringAjv = makeAjv(true);
const cache = new WeakMap<TSchema, ValidateFunction>();

const compile = (schema: TSchema, part: Part): ValidateFunction => {
  let validate = cache.get(schema);
  if (!validate) {
    validate = (part === 'body' ? bodyAjv : stringAjv).compile(schema);
    cache.set(schema, validate);
  }
  return validate;
};

const toFieldError =
  (part: Part) =>
  (error: ErrorObject): FieldError => {
    if (error.keyword === 'required') {
      const missing = String(error.params.missingProperty);
      return { in: part, pointer: `${error.instancePath}/${missing}`, detail: `${missing} is required` };
    }
    if (error.keyword === 'additionalProperties') {
      const extra = String(error.params.additionalProperty);
      return { in: part, pointer: `${error.instancePath}/${extra}`, detail: `${extra} is not allowed here` };
    }
    return { in: part, pointer: error.instancePath || '', detail: error.message ?? 'is invalid' };
  };

/** Whether a value is valid for a schema, as validatePart would find it, without a problem to throw. */
export const conforms = (schema: TSchema, value: unknown, part: Part): boolean => compile(schema, part)(value);

/** Validates (and for non-body parts coerces) one part of the request; throws a 400 problem listing every error. */
export function validatePart<T>(schema: TSchema, value: unknown, part: Part): T {
  const validate = compile(schema, part);
  if (!validate(value)) {
    const errors = (validate.errors ?? []).map(toFieldError(part));
    const unique = errors.filter(
      (e, i) => errors.findIndex((o) => o.pointer === e.pointer && o.detail === e.detail) === i,
    );
    throw problems.validation(unique, part === 'path' ? 'path' : part);
  }
  return value as T;
}
