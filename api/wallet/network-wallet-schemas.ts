import { Type } from '@sinclair/typebox';

export const WalletView = Type.Object({
  networkId: Type.String(),
  kind: Type.Union([Type.Literal('smart-account'), Type.Literal('solana-wallet')], {
    description: 'EVM networks: the ERC-4337 account; SOLANA: a wallet key the service holds',
  }),
  address: Type.String({ description: 'where to receive funds: 0x address (EVM) or base58 public key (SOLANA)' }),
  deployed: Type.Boolean({
    description: 'EVM: whether the account contract exists yet (funds can arrive before); always true on SOLANA',
  }),
  balances: Type.Array(
    Type.Object({
      token: Type.String(),
      amount: Type.String({ description: 'e.g. "2 SOL"' }),
      baseUnits: Type.String({ description: "integer in the token's smallest unit" }),
      decimals: Type.Integer(),
    }),
  ),
});
