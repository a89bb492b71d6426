/**
 * Many puts and deletes on a Merkle-Patricia trie, then one commit that encodes and hashes each
 * changed node once and hands only the final nodes to the store. @ethereumjs/mpt's put re-reads,
 * re-hashes and re-stores the whole path for every key, so a slot of a thousand transfers hashed and
 * stored the upper branches a thousand times; here the trie is edited in memory and sealed at the end.
 * The nodes, their encoding and the roots are Ethereum's (Yellow Paper, appendix D); keys are the
 * caller's (the secure trie's keccak256 is applied before).
 */
import { RLP } from '@ethereumjs/rlp';
import { KECCAK256_RLP } from '@ethereumjs/util';
import { bytesEqual, concatBytes } from '../common/bytes.ts';
import { keccak256 } from '../common/hash.ts';
import { encodeRlp, type RlpInput } from './rlp-encode.ts';

interface Branch {
  kind: 'branch';
  children: (TrieNode | null)[];
  value: Uint8Array | null;
  /** The node as its parent refers to it, while unchanged since it was read or sealed. */
  ref?: NodeRef;
}
interface Extension {
  kind: 'extension';
  path: Uint8Array;
  child: TrieNode;
  ref?: NodeRef;
}
interface Leaf {
  kind: 'leaf';
  path: Uint8Array;
  value: Uint8Array;
  ref?: NodeRef;
}
/** A stored node not read yet. */
interface Unread {
  kind: 'unread';
  hash: Uint8Array;
}
type ReadNode = Branch | Extension | Leaf;
type TrieNode = ReadNode | Unread;
/** A hash (nodes of 32 bytes or more) or the node's own RLP structure (smaller ones, inlined in the parent). */
type NodeRef = Uint8Array | unknown[];

/** Where nodes come from (by hash) and go to (hash and encoding). */
export interface TrieNodeSource {
  read(hash: Uint8Array): Promise<Uint8Array | undefined>;
  /** The node when it is in memory already (read then without awaiting the store). */
  readKept?(hash: Uint8Array): Uint8Array | undefined;
}
export type TrieNodeSink = (hash: Uint8Array, encoded: Uint8Array) => void;

export const EMPTY_TRIE_ROOT = KECCAK256_RLP;

function toNibbles(key: Uint8Array): Uint8Array {
  const out = new Uint8Array(key.length * 2);
  for (let i = 0; i < key.length; i++) {
    out[2 * i] = key[i]! >> 4;
    out[2 * i + 1] = key[i]! & 15;
  }
  return out;
}

/** Hex-prefix encoding of a nibble path with its leaf flag. */
function encodePath(path: Uint8Array, leaf: boolean): Uint8Array {
  const odd = path.length % 2;
  const out = new Uint8Array(1 + (path.length >> 1));
  out[0] = ((leaf ? 2 : 0) + odd) << 4;
  let i = 0;
  if (odd) out[0] |= path[i++]!;
  for (let o = 1; i < path.length; i += 2, o++) out[o] = (path[i]! << 4) | path[i + 1]!;
  return out;
}

function decodePath(encoded: Uint8Array): { path: Uint8Array; leaf: boolean } {
  const flag = encoded[0]! >> 4;
  const nibbles = toNibbles(encoded);
  return { path: nibbles.subarray(flag & 1 ? 1 : 2), leaf: flag >= 2 };
}

/** How many nibbles `path` shares with `key` from `at` on. */
function sharedWithKey(path: Uint8Array, key: Uint8Array, at: number): number {
  let i = 0;
  while (i < path.length && at + i < key.length && path[i] === key[at + i]) i++;
  return i;
}

/** A node from its RLP structure; `ref` is how its parent names it (its hash, or the structure when inlined). */
function fromRaw(raw: unknown[], ref: NodeRef): ReadNode {
  if (raw.length === 17) {
    const children = raw.slice(0, 16).map((c) => childFromRaw(c as Uint8Array | unknown[]));
    const value = raw[16] as Uint8Array;
    return { kind: 'branch', children, value: value.length ? value : null, ref };
  }
  const { path, leaf } = decodePath(raw[0] as Uint8Array);
  if (leaf) return { kind: 'leaf', path, value: raw[1] as Uint8Array, ref };
  return { kind: 'extension', path, child: childFromRaw(raw[1] as Uint8Array | unknown[])!, ref };
}

function childFromRaw(c: Uint8Array | unknown[]): TrieNode | null {
  if (Array.isArray(c)) return fromRaw(c, c);
  if (c.length === 0) return null;
  return { kind: 'unread', hash: c };
}

export class TrieBatch {
  private root: TrieNode | null;

  constructor(
    root: Uint8Array,
    private readonly source: TrieNodeSource,
  ) {
    this.root = root.length === 32 && !bytesEqual(root, EMPTY_TRIE_ROOT) ? { kind: 'unread', hash: root } : null;
  }

  async put(key: Uint8Array, value: Uint8Array): Promise<void> {
    if (value.length === 0) return this.del(key);
    const nibbles = toNibbles(key);
    await this.readPath(nibbles);
    this.root = this.insert(this.root, nibbles, 0, value);
  }

  async del(key: Uint8Array): Promise<void> {
    this.root = await this.remove(this.root, toNibbles(key));
  }

  /** Encodes and hashes what changed, hands each new stored node to `sink`, and returns the root. */
  commit(sink: TrieNodeSink): Uint8Array {
    if (!this.root) return EMPTY_TRIE_ROOT;
    const ref = this.seal(this.root, sink);
    if (!Array.isArray(ref)) return ref;
    // A root under 32 bytes is still stored and named by its hash (a root is always a stored node).
    const encoded = encodeRlp(ref as RlpInput[]);
    const hash = keccak256(encoded);
    sink(hash, encoded);
    return hash;
  }

  private async read(node: TrieNode): Promise<ReadNode> {
    if (node.kind !== 'unread') return node;
    const encoded = this.source.readKept?.(node.hash) ?? (await this.source.read(node.hash));
    if (!encoded) throw new Error(`trie node ${Buffer.from(node.hash).toString('hex')} is missing`);
    return fromRaw(RLP.decode(encoded) as unknown[], node.hash);
  }

  /**
   * Reads the stored nodes on `key`'s path into the tree (their parents are unchanged: a read node
   * keeps its reference), so that insert runs without awaiting a read at every level.
   */
  private async readPath(key: Uint8Array): Promise<void> {
    if (this.root?.kind === 'unread') this.root = await this.read(this.root);
    let node: TrieNode | null = this.root;
    let at = 0;
    while (node) {
      if (node.kind === 'branch') {
        if (at === key.length) return;
        const child = node.children[key[at]!];
        if (child?.kind === 'unread') node.children[key[at]!] = await this.read(child);
        node = node.children[key[at++]!] ?? null;
      } else if (node.kind === 'extension') {
        if (sharedWithKey(node.path, key, at) < node.path.length) return;
        if (node.child.kind === 'unread') node.child = await this.read(node.child);
        at += node.path.length;
        node = node.child;
      } else {
        return;
      }
    }
  }

  /** `key` (nibbles, from `at`) set to `value` under `at`, whose path readPath has read. */
  private insert(node: TrieNode | null, key: Uint8Array, at: number, value: Uint8Array): TrieNode {
    if (!node) return { kind: 'leaf', path: key.subarray(at), value };
    if (node.kind === 'unread') throw new Error('trie insert reached a node its path read did not read');
    if (node.kind === 'branch') {
      node.ref = undefined;
      if (at === key.length) node.value = value;
      else node.children[key[at]!] = this.insert(node.children[key[at]!]!, key, at + 1, value);
      return node;
    }
    const shared = sharedWithKey(node.path, key, at);
    if (node.kind === 'leaf' && shared === node.path.length && at + shared === key.length) return { kind: 'leaf', path: key.subarray(at), value };
    if (node.kind === 'extension' && shared === node.path.length) {
      node.ref = undefined;
      node.child = this.insert(node.child, key, at + shared, value);
      return node;
    }
    // The paths part at `shared`: a branch there holds what was here and the new leaf.
    const branch: Branch = { kind: 'branch', children: new Array(16).fill(null), value: null };
    const rest = node.path.subarray(shared);
    if (node.kind === 'leaf') {
      if (rest.length === 0) branch.value = node.value;
      else branch.children[rest[0]!] = { kind: 'leaf', path: rest.subarray(1), value: node.value };
    } else {
      branch.children[rest[0]!] = rest.length > 1 ? { kind: 'extension', path: rest.subarray(1), child: node.child } : node.child;
    }
    const mine = at + shared;
    if (mine === key.length) branch.value = value;
    else branch.children[key[mine]!] = { kind: 'leaf', path: key.subarray(mine + 1), value };
    return shared > 0 ? { kind: 'extension', path: key.subarray(at, mine), child: branch } : branch;
  }

  private async remove(at: TrieNode | null, path: Uint8Array): Promise<TrieNode | null> {
    if (!at) return null;
    const node = await this.read(at);
    // Unchanged (the key is not there): the same node, so that nothing above is re-encoded.
    if (node.kind === 'leaf') return bytesEqual(node.path, path) ? null : at;
    if (node.kind === 'extension') {
      if (sharedWithKey(node.path, path, 0) < node.path.length) return at;
      const child = await this.remove(node.child, path.subarray(node.path.length));
      if (child === node.child) return at;
      return child ? this.prefixed(node.path, await this.read(child)) : null;
    }
    if (path.length === 0) {
      if (node.value === null) return at;
      node.value = null;
    } else {
      const before = node.children[path[0]!]!;
      const after = await this.remove(before, path.subarray(1));
      if (after === before) return at;
      node.children[path[0]!] = after;
    }
    node.ref = undefined;
    // A branch left with one entry becomes that entry under a longer path.
    const kept = node.children.flatMap((c, i) => (c ? [i] : []));
    if (kept.length + (node.value ? 1 : 0) > 1) return node;
    if (kept.length === 0) return node.value ? { kind: 'leaf', path: new Uint8Array(0), value: node.value } : null;
    const index = kept[0]!;
    return this.prefixed(Uint8Array.of(index), await this.read(node.children[index]!));
  }

  /** `node` one level further down, under `prefix`: paths join, a branch gets an extension. */
  private prefixed(prefix: Uint8Array, node: ReadNode): ReadNode {
    if (node.kind === 'leaf') return { kind: 'leaf', path: concatBytes(prefix, node.path), value: node.value };
    if (node.kind === 'extension') return { kind: 'extension', path: concatBytes(prefix, node.path), child: node.child };
    return { kind: 'extension', path: prefix, child: node };
  }

  /** The reference to `node` in its parent, storing it (and what changed below it) when hashed. */
  private seal(node: TrieNode, sink: TrieNodeSink): NodeRef {
    if (node.kind === 'unread') return node.hash;
    if (node.ref) return node.ref;
    let raw: unknown[];
    if (node.kind === 'branch') {
      raw = node.children.map((c) => (c ? this.seal(c, sink) : new Uint8Array(0)));
      raw.push(node.value ?? new Uint8Array(0));
    } else if (node.kind === 'extension') {
      raw = [encodePath(node.path, false), this.seal(node.child, sink)];
    } else {
      raw = [encodePath(node.path, true), node.value];
    }
    const encoded = encodeRlp(raw as RlpInput[]);
    if (encoded.length < 32) return (node.ref = raw);
    const hash = keccak256(encoded);
    sink(hash, encoded);
    return (node.ref = hash);
  }
}

/** The root of a trie holding `entries` (no store: the nodes are not kept), e.g. a block's transactions trie. */
export async function trieRootOf(entries: Iterable<[Uint8Array, Uint8Array]>): Promise<Uint8Array> {
  const batch = new TrieBatch(EMPTY_TRIE_ROOT, { read: async () => undefined });
  for (const [key, value] of entries) await batch.put(key, value);
  return batch.commit(() => {});
}
