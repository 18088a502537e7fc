/**
 * Gas per user operation against eth-infinitism's SimpleAccount, and what bundling saves: both on a local anvil chain
 * of their own, through Pimlico's Alto, with our WalletPaymaster sponsoring every operation on both sides.
 */
import {
  Contract,
  Interface,
  JsonRpcProvider,
  NonceManager,
  Wallet,
  type BaseWallet,
  concat,
  parseEther,
  type InterfaceAbi,
} from 'ethers';
import SimpleAccountFactoryArtifact from '@account-abstraction/contracts/artifacts/SimpleAccountFactory.json';
import SimpleAccountArtifact from '@account-abstraction/contracts/artifacts/SimpleAccount.json';
import {
  ANVIL_DEPLOYER_KEY,
  ANVIL_PAYMASTER_SIGNER_KEY,
  ensureChainContracts,
  ensureDeployed,
  startAnvil,
} from '../dev/chains';
import { startAlto, type AltoOptions, type RunningBundler } from '../dev/alto';
import { loadArtifact } from '../contracts/build';
import { BundlerClient, type UserOperationReceipt } from '../integrations/evm/bundler-client';
import { withEstimatedGas, type SignatureShape } from '../integrations/evm/gas-estimate';
import { PaymasterSigner } from '../integrations/evm/paymaster';
import { buildDeployOperation, buildTransferOperation, transferCallData } from '../integrations/evm/smart-account';
import { setAttributeCallData } from '../integrations/evm/did-registry';
import {
  singleSignature,
  transferSignature,
  userOperationHash,
  type UserOperation,
} from '../integrations/evm/user-operation';
import type { EvmNetwork } from '../platform/networks';

/** anvil's ninth and tenth development accounts: the executor and utility keys of the one-operation-per-bundle Alto. */
const SINGLE_EXECUTOR_KEY = '0xdbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97';
const SINGLE_UTILITY_KEY = '0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6';
/** anvil's second, fifth and sixth development accounts: the executor keys of the bundler with three (issue 52). */
const THREE_EXECUTOR_KEYS = [
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a',
  '0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba',
].join(',');

export interface GasRow {
  operation: string;
  ours: number;
  reference: number;
  /** ours / reference */
  ratio: number;
  goal?: number;
  /** What the EntryPoint charged (actualGasUsed) over the bundle transaction's gas, ours and the reference's. */
  chargedOverShare: { ours: number; reference: number };
}

export interface BundlingRow {
  users: number;
  bundled: { opsPerSecond: number; gasPerOperation: number; transactions: number; operations: number };
  single: { opsPerSecond: number; gasPerOperation: number; transactions: number; operations: number };
  /** The same Alto settings as `bundled` with three executor keys (`--executor-private-keys`). */
  threeKeys: { opsPerSecond: number; gasPerOperation: number; transactions: number; operations: number };
}

export interface Chain {
  network: EvmNetwork;
  provider: JsonRpcProvider;
  deployer: NonceManager;
  simpleFactory: string;
  stop(): Promise<void>;
}

const sponsor = new PaymasterSigner(ANVIL_PAYMASTER_SIGNER_KEY);
type Prepare = () => Promise<{ op: UserOperation; hash: string }>;
/** The nonce lane the service gives a user's transfers one after another (activities/transfer.ts, claimNonceLane). */
const LANE = 1n;
const simpleAccount = new Interface(SimpleAccountArtifact.abi as InterfaceAbi);
const walletAccount = new Interface(loadArtifact('WalletAccount').abi as InterfaceAbi);
const erc20 = new Interface(['function transfer(address to, uint256 amount) returns (bool)']);
const freePort = async (): Promise<number> => {
  const { createServer } = await import('node:net');
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
};

async function startChain(chainId: number, bundlers: Array<Partial<AltoOptions>>) {
  const anvil = await startAnvil({ chainId, port: await freePort() });
  const contracts = await ensureChainContracts(anvil.rpcUrl);
  const simpleFactory = await ensureDeployed(
    anvil.rpcUrl,
    SimpleAccountFactoryArtifact,
    [contracts.entryPoint],
    'simple-account-factory-v0.8',
  );
  const running: RunningBundler[] = [];
  for (const options of bundlers)
    running.push(
      await startAlto({ rpcUrl: anvil.rpcUrl, entryPoint: contracts.entryPoint, port: await freePort(), ...options }),
    );
  const provider = new JsonRpcProvider(anvil.rpcUrl, chainId, { staticNetwork: true, pollingInterval: 100 });
  const network: EvmNetwork = {
    networkId: 'BENCH',
    kind: 'evm',
    chainId,
    rpcUrl: anvil.rpcUrl,
    bundlerUrl: running[0]!.url,
    ...contracts,
    tokens: { USDT: { address: contracts.usdt, decimals: 6 } },
  };
  const chain: Chain = {
    network,
    provider,
    deployer: new NonceManager(new Wallet(ANVIL_DEPLOYER_KEY, provider)),
    simpleFactory,
    stop: async () => {
      provider.destroy();
      for (const bundler of running) await bundler.stop();
      await anvil.stop();
    },
  };
  return { chain, bundlers: running.map((b) => new BundlerClient(b.url, contracts.entryPoint)) };
}

/** Sponsors, signs and prepares an operation whose gas the bundler estimated. */
export async function prepared(
  chain: Chain,
  bundler: BundlerClient,
  op: UserOperation,
  shape: SignatureShape,
  sign: (hash: string) => string,
  estimated = false,
): Promise<{ op: UserOperation; hash: string }> {
  const limited = estimated ? op : await withEstimatedGas(bundler, op, chain.network.paymaster, shape);
  const sponsored = {
    ...limited,
    paymasterAndData: sponsor.sign(limited, chain.network, Math.floor(Date.now() / 1000) + 3600),
  };
  const hash = userOperationHash(sponsored, chain.network.chainId, chain.network.entryPoint);
  return { op: { ...sponsored, signature: sign(hash) }, hash };
}

/** A capped transfer by the account's transfer key on nonce lane 1, as the service sends a user's transfers. */
export async function signedTransfer(
  chain: Chain,
  bundler: BundlerClient,
  transferKey: BaseWallet,
  account: string,
  to: string,
  amount: bigint,
  token?: string,
): Promise<{ op: UserOperation; hash: string }> {
  const op = await buildTransferOperation(
    chain.provider,
    bundler,
    chain.network,
    account,
    transferCallData(to, amount, token ? { address: token } : undefined),
    LANE,
  );
  return prepared(
    chain,
    bundler,
    op,
    { kind: 'transfer' },
    (h) => transferSignature(transferKey.signingKey.sign(h).serialized),
    true,
  );
}

export async function receiptOf(bundler: BundlerClient, hash: string): Promise<UserOperationReceipt> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const receipt = await bundler.receipt(hash);
    if (receipt) return receipt;
    if (Date.now() > deadline) throw new Error(`user operation ${hash} not included within 60 s`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Sends one operation, alone, and reads what it cost: charged (actualGasUsed) and its bundle transaction's gas. */
async function runAlone(chain: Chain, bundler: BundlerClient, op: { op: UserOperation; hash: string }) {
  await bundler.send(op.op);
  const receipt = await receiptOf(bundler, op.hash);
  if (!receipt.success) throw new Error(`user operation ${op.hash} reverted: ${receipt.revertReason ?? ''}`);
  const tx = await chain.provider.getTransactionReceipt(receipt.txHash);
  return { charged: Number(receipt.actualGasUsed), transaction: Number(tx!.gasUsed) };
}

const nonceOf = async (chain: Chain, sender: string, key = 0n): Promise<bigint> =>
  (await new Contract(
    chain.network.entryPoint,
    ['function getNonce(address,uint192) view returns (uint256)'],
    chain.provider,
  ).getFunction('getNonce')(sender, key)) as bigint;

async function fees(chain: Chain) {
  const data = await chain.provider.getFeeData();
  return {
    maxFeePerGas: (data.maxFeePerGas ?? 1_000_000_000n) * 2n,
    maxPriorityFeePerGas: data.maxPriorityFeePerGas ?? 1_000_000n,
  };
}

/** A SimpleAccount operation (raw ECDSA over the userOpHash, as SimpleAccount v0.8 checks). */
async function simpleOperation(
  chain: Chain,
  sender: string,
  callData: string,
  initCode = '0x',
): Promise<UserOperation> {
  return {
    sender,
    nonce: await nonceOf(chain, sender),
    initCode,
    callData,
    callGasLimit: 0n,
    verificationGasLimit: 0n,
    preVerificationGas: 0n,
    ...(await fees(chain)),
    paymasterAndData: '0x',
    signature: '0x',
  };
}

async function ownerCall(chain: Chain, account: string, target: string, value: bigint, data: string) {
  return {
    sender: account,
    nonce: await nonceOf(chain, account),
    initCode: '0x',
    callData: walletAccount.encodeFunctionData('execute', [target, value, data]),
    callGasLimit: 0n,
    verificationGasLimit: 0n,
    preVerificationGas: 0n,
    ...(await fees(chain)),
    paymasterAndData: '0x',
    signature: '0x',
  } satisfies UserOperation;
}

/**
 * Gas per operation, each alone in its bundle: ours (WalletAccount) and SimpleAccount doing the same thing, the
 * second operation of each kind measured (the first warms the account's storage on both sides alike).
 */
export async function gasPerOperation(log: (line: string) => void): Promise<GasRow[]> {
  const { chain, bundlers } = await startChain(31390, [{}]);
  const bundler = bundlers[0]!;
  try {
    const owner = Wallet.createRandom();
    const transferKey = Wallet.createRandom();
    const usdt = chain.network.tokens!.USDT!.address;
    const ownerSign = (hash: string) => singleSignature(owner.signingKey.sign(hash).serialized);
    const rawSign = (hash: string) => owner.signingKey.sign(hash).serialized;
    const recipient = Wallet.createRandom().address;
    // The recipient exists and holds the token already, so no operation pays for creating its balance.
    await (await chain.deployer.sendTransaction({ to: recipient, value: 1n })).wait();
    await (
      await new Contract(usdt, loadArtifact('TestUSDT').abi as InterfaceAbi, chain.deployer).getFunction('mint')(
        recipient,
        1n,
      )
    ).wait();
    const simpleFactory = new Contract(
      chain.simpleFactory,
      SimpleAccountFactoryArtifact.abi as InterfaceAbi,
      chain.provider,
    );
    const simpleInitCode = (salt: bigint) =>
      concat([chain.simpleFactory, simpleFactory.interface.encodeFunctionData('createAccount', [owner.address, salt])]);
    const simpleAddress = async (salt: bigint) =>
      (await simpleFactory.getFunction('getAddress')(owner.address, salt)) as string;
    const rows: GasRow[] = [];
    const measure = async (
      operation: string,
      ours: () => Promise<{ op: UserOperation; hash: string }>,
      reference: () => Promise<{ op: UserOperation; hash: string }>,
      goal?: number,
    ) => {
      const a = await runAlone(chain, bundler, await ours());
      const b = await runAlone(chain, bundler, await reference());
      rows.push({
        operation,
        ours: a.transaction,
        reference: b.transaction,
        ratio: a.transaction / b.transaction,
        goal,
        chargedOverShare: { ours: a.charged / a.transaction, reference: b.charged / b.transaction },
      });
      log(
        `  ${operation}: ours ${a.transaction}, SimpleAccount ${b.transaction} (${(a.transaction / b.transaction).toFixed(2)})`,
      );
    };

    // Creation, like for like: an account with its owner and nothing else. Ours with its transfer key set up, apart.
    const fund = async (address: string) => {
      await (await chain.deployer.sendTransaction({ to: address, value: parseEther('10') })).wait();
      const token = new Contract(usdt, loadArtifact('TestUSDT').abi as InterfaceAbi, chain.deployer);
      await (await token.getFunction('mint')(address, 1_000_000_000n)).wait();
    };
    let ours = '';
    let simple = '';
    await measure(
      'account creation',
      async () => {
        const op = await buildDeployOperation(chain.provider, bundler, chain.network, owner.address);
        ours = op.sender;
        return prepared(chain, bundler, op, { kind: 'owner' }, ownerSign, true);
      },
      async () => {
        simple = await simpleAddress(0n);
        return prepared(
          chain,
          bundler,
          await simpleOperation(chain, simple, '0x', simpleInitCode(0n)),
          { kind: 'plain' },
          rawSign,
        );
      },
      1.0,
    );
    // Ours once more, for another owner, with the transfer key configured in the same operation (what the service does).
    const second = Wallet.createRandom();
    const withKey = await buildDeployOperation(chain.provider, bundler, chain.network, second.address, {
      signer: transferKey.address,
      validUntil: Math.floor(Date.now() / 1000) + 365 * 86_400,
      caps: [
        { token: '0x0000000000000000000000000000000000000000', dailyCap: parseEther('5') },
        { token: usdt, dailyCap: 1_000_000_000n },
      ],
    });
    const capped = withKey.sender;
    const withKeyRun = await runAlone(
      chain,
      bundler,
      await prepared(
        chain,
        bundler,
        withKey,
        { kind: 'owner' },
        (h) => singleSignature(second.signingKey.sign(h).serialized),
        true,
      ),
    );
    const creation = rows[0]!;
    rows.push({
      operation: 'account creation with the transfer key set up (ours only; reference: plain creation)',
      ours: withKeyRun.transaction,
      reference: creation.reference,
      ratio: withKeyRun.transaction / creation.reference,
      chargedOverShare: {
        ours: withKeyRun.charged / withKeyRun.transaction,
        reference: creation.chargedOverShare.reference,
      },
    });
    for (const address of [ours, simple, capped]) await fund(address);

    const simpleCall = (target: string, value: bigint, data: string) => async () =>
      prepared(
        chain,
        bundler,
        await simpleOperation(chain, simple, simpleAccount.encodeFunctionData('execute', [target, value, data])),
        { kind: 'plain' },
        rawSign,
      );
    const ourCall = (target: string, value: bigint, data: string) => async () =>
      prepared(chain, bundler, await ownerCall(chain, ours, target, value, data), { kind: 'owner' }, ownerSign);
    const cappedTransfer = (to: string, amount: bigint, token?: string) => async () =>
      signedTransfer(chain, bundler, transferKey, capped, to, amount, token);
    // Warm-up: the first call of each account (its nonce and balances written the first time).
    await runAlone(chain, bundler, await ourCall(recipient, 1n, '0x')());
    await runAlone(chain, bundler, await simpleCall(recipient, 1n, '0x')());

    const transferData = erc20.encodeFunctionData('transfer', [recipient, 1_000n]);
    const didData = (account: string) =>
      setAttributeCallData(
        account,
        'EcdsaSecp256k1VerificationKey2019',
        Wallet.createRandom().signingKey.compressedPublicKey,
        86_400,
      );
    // Like for like (owner-signed calls), then the service's transfers: the transfer key's capped call, on the
    // account's first nonce lane.
    const cases: Array<[string, Prepare, Prepare, number | undefined]> = [
      [
        'native transfer (owner-signed execute)',
        ourCall(recipient, 1_000n, '0x'),
        simpleCall(recipient, 1_000n, '0x'),
        1.0,
      ],
      [
        'ERC-20 transfer (owner-signed execute)',
        ourCall(usdt, 0n, transferData),
        simpleCall(usdt, 0n, transferData),
        1.0,
      ],
      [
        'contract call with data (DID registry setAttribute)',
        () => ourCall(chain.network.didRegistry, 0n, didData(ours))(),
        () => simpleCall(chain.network.didRegistry, 0n, didData(simple))(),
        1.0,
      ],
      [
        "capped native transfer, the nonce lane's first (its slot written once)",
        cappedTransfer(recipient, 1_000n),
        simpleCall(recipient, 1_000n, '0x'),
        undefined,
      ],
      ['capped native transfer', cappedTransfer(recipient, 1_000n), simpleCall(recipient, 1_000n, '0x'), 1.15],
      [
        "capped ERC-20 transfer, the token's first of the day",
        cappedTransfer(recipient, 1_000n, usdt),
        simpleCall(usdt, 0n, transferData),
        1.15,
      ],
      [
        'capped ERC-20 transfer, later the same day',
        cappedTransfer(recipient, 1_000n, usdt),
        simpleCall(usdt, 0n, transferData),
        1.15,
      ],
    ];
    for (const [operation, ourOp, referenceOp, goal] of cases) await measure(operation, ourOp, referenceOp, goal);
    return rows;
  } finally {
    await chain.stop();
  }
}

/**
 * `count` accounts deployed through `bundler`, each with `transferKey` as its transfer key (a daily cap of 100 of the
 * coin) and 1 of the coin: what a capped transfer needs.
 */
export async function accountsWithTransferKey(
  chain: Chain,
  bundler: BundlerClient,
  transferKey: BaseWallet,
  count: number,
): Promise<string[]> {
  const accounts: string[] = [];
  const deploys = await Promise.all(
    Array.from({ length: count }, async () => {
      const owner = Wallet.createRandom();
      const op = await buildDeployOperation(chain.provider, bundler, chain.network, owner.address, {
        signer: transferKey.address,
        validUntil: Math.floor(Date.now() / 1000) + 365 * 86_400,
        caps: [{ token: '0x0000000000000000000000000000000000000000', dailyCap: parseEther('100') }],
      });
      accounts.push(op.sender);
      return prepared(
        chain,
        bundler,
        op,
        { kind: 'owner' },
        (h) => singleSignature(owner.signingKey.sign(h).serialized),
        true,
      );
    }),
  );
  await Promise.all(deploys.map((d) => bundler.send(d.op)));
  await Promise.all(deploys.map((d) => receiptOf(bundler, d.hash)));
  const funded = await Promise.all(
    accounts.map((to) => chain.deployer.sendTransaction({ to, value: parseEther('1') })),
  );
  await Promise.all(funded.map((tx) => tx.wait()));
  return accounts;
}

/**
 * Sponsored transfers by `users` accounts at once on one executor key: Alto packing what it holds into one bundle
 * against Alto taking one operation per bundle (mempool-pop-batch-size 1). Operations per second from the first send
 * to the last receipt; gas per operation from the bundles' transactions.
 */
export async function bundling(log: (line: string) => void, levels = [1, 10, 50]): Promise<BundlingRow[]> {
  const { chain, bundlers } = await startChain(31391, [
    {},
    // One operation per bundle: room for one transfer's gas limits and no more.
    { popBatchSize: 1, maxGasPerBundle: 250_000n, executorKey: SINGLE_EXECUTOR_KEY, utilityKey: SINGLE_UTILITY_KEY },
    // Bundled as the first, from three executor keys (started after the second, whose utility key it shares).
    { executorKey: THREE_EXECUTOR_KEYS, utilityKey: SINGLE_UTILITY_KEY },
  ]);
  const [bundled, single, threeKeys] = bundlers as [BundlerClient, BundlerClient, BundlerClient];
  try {
    const transferKey = Wallet.createRandom();
    const recipient = Wallet.createRandom().address;
    await (await chain.deployer.sendTransaction({ to: recipient, value: 1n })).wait();
    const users = Math.max(...levels);
    log(`  ${users} accounts with the transfer key`);
    const accounts = await accountsWithTransferKey(chain, bundled, transferKey, users);

    const round = async (bundler: BundlerClient, count: number) => {
      const ops = await Promise.all(
        accounts
          .slice(0, count)
          .map((account) => signedTransfer(chain, bundler, transferKey, account, recipient, 1_000n)),
      );
      const started = process.hrtime.bigint();
      await Promise.all(ops.map((op) => bundler.send(op.op)));
      const receipts = await Promise.all(ops.map((op) => receiptOf(bundler, op.hash)));
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const transactions = [...new Set(receipts.map((r) => r.txHash))];
      const gas = (
        await Promise.all(
          transactions.map(async (hash) => Number((await chain.provider.getTransactionReceipt(hash))!.gasUsed)),
        )
      ).reduce((a, b) => a + b, 0);
      return { seconds, gas, transactions: transactions.length, operations: count };
    };
    const measure = async (bundler: BundlerClient, users: number) => {
      // Enough rounds for a few seconds of work at one user, one round past ten.
      const rounds = users === 1 ? 10 : users <= 10 ? 3 : 1;
      const totals = { seconds: 0, gas: 0, transactions: 0, operations: 0 };
      for (let i = 0; i < rounds; i += 1) {
        const r = await round(bundler, users);
        totals.seconds += r.seconds;
        totals.gas += r.gas;
        totals.transactions += r.transactions;
        totals.operations += r.operations;
      }
      return {
        opsPerSecond: totals.operations / totals.seconds,
        gasPerOperation: totals.gas / totals.operations,
        transactions: totals.transactions,
        operations: totals.operations,
      };
    };
    const rows: BundlingRow[] = [];
    for (const users of levels) {
      const row = {
        users,
        bundled: await measure(bundled, users),
        single: await measure(single, users),
        threeKeys: await measure(threeKeys, users),
      };
      log(
        `  ${users} at once: bundled ${row.bundled.opsPerSecond.toFixed(1)} op/s, ${Math.round(row.bundled.gasPerOperation)} gas/op in ${row.bundled.transactions} tx; ` +
          `one per bundle ${row.single.opsPerSecond.toFixed(1)} op/s, ${Math.round(row.single.gasPerOperation)} gas/op in ${row.single.transactions} tx; ` +
          `bundled from three executor keys ${row.threeKeys.opsPerSecond.toFixed(1)} op/s in ${row.threeKeys.transactions} tx`,
      );
      rows.push(row);
    }
    return rows;
  } finally {
    await chain.stop();
  }
}
