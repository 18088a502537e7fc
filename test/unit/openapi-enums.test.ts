import Ajv from 'ajv';
import { Type } from '@sinclair/typebox';
import { constantsAsEnums } from '../../api/http/openapi-enums';

describe('sets of string constants written as enum in the served document', () => {
  const schemas = {
    set: Type.Union([Type.Literal('open'), Type.Literal('approved'), Type.Literal('rejected')], {
      description: 'a case status',
    }),
    inObject: Type.Object({
      provider: Type.Union([Type.Literal('upbit'), Type.Literal('bithumb')]),
      list: Type.Array(Type.Union([Type.Literal('a'), Type.Literal('b')])),
    }),
    withNull: Type.Union([Type.Literal('fees-rose'), Type.Null()]),
    mixed: Type.Union([Type.Literal('x'), Type.Number()]),
  };
  const values = [
    'open',
    'approved',
    'rejected',
    'closed',
    '',
    null,
    1,
    { provider: 'upbit', list: ['a', 'b'] },
    { provider: 'kraken', list: [] },
    { provider: 'bithumb', list: ['c'] },
    'fees-rose',
    'x',
    2,
  ];

  it.each(Object.entries(schemas))('%s: accepts and refuses exactly what the TypeBox schema does', (_, schema) => {
    const plain = JSON.parse(JSON.stringify(schema)) as object;
    const rewritten = constantsAsEnums(plain);
    const ajv = new Ajv({ strict: false });
    const [before, after] = [ajv.compile(plain), ajv.compile(rewritten)];
    for (const value of values) expect([value, after(value)]).toEqual([value, before(value)]);
  });

  it('rewrites a union of string literals to one enum (one member beside other schemas), keeping its description; other unions stay', () => {
    expect(constantsAsEnums(JSON.parse(JSON.stringify(schemas.set)))).toEqual({
      type: 'string',
      enum: ['open', 'approved', 'rejected'],
      description: 'a case status',
    });
    const inObject = constantsAsEnums(JSON.parse(JSON.stringify(schemas.inObject))) as {
      properties: { provider: unknown; list: { items: unknown } };
    };
    expect(inObject.properties.provider).toEqual({ type: 'string', enum: ['upbit', 'bithumb'] });
    expect(inObject.properties.list.items).toEqual({ type: 'string', enum: ['a', 'b'] });
    expect(constantsAsEnums(JSON.parse(JSON.stringify(schemas.withNull)))).toEqual({
      anyOf: [{ type: 'string', enum: ['fees-rose'] }, { type: 'null' }],
    });
    expect(constantsAsEnums(JSON.parse(JSON.stringify(schemas.mixed)))).toEqual({
      anyOf: [{ type: 'string', enum: ['x'] }, { type: 'number' }],
    });
    const plainUnion = JSON.parse(JSON.stringify(Type.Union([Type.String(), Type.Number()]))) as unknown;
    expect(constantsAsEnums(plainUnion)).toEqual(plainUnion);
  });
});
