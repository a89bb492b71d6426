/**
 * How @solana/kit's types of the Solana RPC relate to the JSON the node reads and writes; type-level
 * only (the compiler checks the native method table with it, see ./api.ts).
 *
 * Kit describes a method as a client sees it after its own parsing: u64 values as `bigint`, and
 * addresses, signatures, blockhashes and encoded bytes as branded strings. On the wire all of these
 * are JSON numbers and plain strings, and the node holds them as `number` and `string`. `Wire<T>` is
 * that correspondence and nothing more: bigint (branded or not) becomes number, a branded string
 * becomes string, `void` (kit's "not given") becomes undefined (absent), an index signature of
 * `never` (kit intersects `Record<string, never>` to add nothing) goes, and so does `readonly` (JSON
 * has none); everything else stays as kit wrote it, literal unions included.
 *
 * Two corrections can be threaded through: `Coarser` lists kit types that the node's own types
 * describe more loosely, as `[kit's, node's]` pairs (wherever a field or item has exactly kit's
 * type, it is compared as the node's instead), and `Nullable` names fields kit declares never null
 * that Agave sends as null (wherever a field of that name is, null is admitted too).
 */

/** Kit's nominal brands are properties named `__<kind>:@solana/kit` on a string or bigint. */
type IsBranded<S extends string> = [Exclude<keyof S, keyof string>] extends [never] ? false : true;

export type Wire<T, Coarser = never, Nullable extends PropertyKey = never> = T extends bigint
  ? number
  : T extends string
    ? IsBranded<T> extends true
      ? string
      : T
    : T extends number | boolean | null | undefined
      ? T
      : T extends void
        ? undefined
        : T extends readonly unknown[]
          ? { -readonly [I in keyof T]: WireValue<T[I], Coarser, Nullable> }
          : T extends object
            ? {
                -readonly [K in keyof T as string extends K ? ([T[K]] extends [never] ? never : K) : K]: WireValue<T[K], Coarser, Nullable> | (K extends Nullable ? null : never);
              }
            : T;

type Absent = null | undefined;
type CoarserOf<V, Coarser> = Coarser extends [infer Kit, infer Node] ? (Equals<Exclude<V, Absent>, Kit> extends true ? Node | Extract<V, Absent> : never) : never;
type WireValue<V, Coarser, Nullable extends PropertyKey> = [CoarserOf<V, Coarser>] extends [never] ? Wire<V, Coarser, Nullable> : CoarserOf<V, Coarser>;

// ---- the call signatures of an overloaded method ----

/**
 * Each overload of a kit method as `[args, result]`. Inferring from a type with N call signatures
 * against a pattern of M ≥ N signatures pairs them up from the last one; the pattern's extra
 * positions repeat signatures already found, so the union holds each overload once. Kit 8.4's
 * largest set is simulateTransaction's 31; a method with more than 48 would lose its first ones.
 */
type OverloadPairs<F> = F extends {
  (...args: infer A0): infer R0;
  (...args: infer A1): infer R1;
  (...args: infer A2): infer R2;
  (...args: infer A3): infer R3;
  (...args: infer A4): infer R4;
  (...args: infer A5): infer R5;
  (...args: infer A6): infer R6;
  (...args: infer A7): infer R7;
  (...args: infer A8): infer R8;
  (...args: infer A9): infer R9;
  (...args: infer A10): infer R10;
  (...args: infer A11): infer R11;
  (...args: infer A12): infer R12;
  (...args: infer A13): infer R13;
  (...args: infer A14): infer R14;
  (...args: infer A15): infer R15;
  (...args: infer A16): infer R16;
  (...args: infer A17): infer R17;
  (...args: infer A18): infer R18;
  (...args: infer A19): infer R19;
  (...args: infer A20): infer R20;
  (...args: infer A21): infer R21;
  (...args: infer A22): infer R22;
  (...args: infer A23): infer R23;
  (...args: infer A24): infer R24;
  (...args: infer A25): infer R25;
  (...args: infer A26): infer R26;
  (...args: infer A27): infer R27;
  (...args: infer A28): infer R28;
  (...args: infer A29): infer R29;
  (...args: infer A30): infer R30;
  (...args: infer A31): infer R31;
  (...args: infer A32): infer R32;
  (...args: infer A33): infer R33;
  (...args: infer A34): infer R34;
  (...args: infer A35): infer R35;
  (...args: infer A36): infer R36;
  (...args: infer A37): infer R37;
  (...args: infer A38): infer R38;
  (...args: infer A39): infer R39;
  (...args: infer A40): infer R40;
  (...args: infer A41): infer R41;
  (...args: infer A42): infer R42;
  (...args: infer A43): infer R43;
  (...args: infer A44): infer R44;
  (...args: infer A45): infer R45;
  (...args: infer A46): infer R46;
  (...args: infer A47): infer R47;
}
  ?
      | [A0, R0] | [A1, R1] | [A2, R2] | [A3, R3] | [A4, R4] | [A5, R5] | [A6, R6] | [A7, R7]
      | [A8, R8] | [A9, R9] | [A10, R10] | [A11, R11] | [A12, R12] | [A13, R13] | [A14, R14] | [A15, R15]
      | [A16, R16] | [A17, R17] | [A18, R18] | [A19, R19] | [A20, R20] | [A21, R21] | [A22, R22] | [A23, R23]
      | [A24, R24] | [A25, R25] | [A26, R26] | [A27, R27] | [A28, R28] | [A29, R29] | [A30, R30] | [A31, R31]
      | [A32, R32] | [A33, R33] | [A34, R34] | [A35, R35] | [A36, R36] | [A37, R37] | [A38, R38] | [A39, R39]
      | [A40, R40] | [A41, R41] | [A42, R42] | [A43, R43] | [A44, R44] | [A45, R45] | [A46, R46] | [A47, R47]
  : never;

/** The argument lists a client may send, one per overload. */
export type OverloadArgs<F> = OverloadPairs<F>[0];
/** The results a client may get, one per overload. */
export type OverloadResults<F> = OverloadPairs<F>[1];

// ---- one shape admitting each of a union's members ----

type Arrays<U> = Extract<U, readonly unknown[]>;
type Objects<U> = Exclude<Extract<U, object>, readonly unknown[]>;
type KeysOf<U> = U extends unknown ? keyof U : never;
type ValuesAt<U, K extends PropertyKey> = U extends unknown ? (K extends keyof U ? U[K] : never) : never;
type OptionalKeysOf<U> = U extends unknown ? { [K in keyof U]-?: {} extends Pick<U, K> ? K : never }[keyof U] : never;
type IsUnion<T, C = T> = T extends unknown ? ([C] extends [T] ? false : true) : never;
type LengthOf<A> = A extends readonly unknown[] ? A['length'] : never;
type ItemOf<A> = A extends readonly unknown[] ? A[number] : never;
type TupleOf<U, L, Acc extends unknown[] = []> = Acc['length'] extends L ? Acc : TupleOf<U, L, [...Acc, AnyOf<ValuesAt<U, Acc['length']>>]>;

type AnyArray<A> = [A] extends [never]
  ? never
  : number extends LengthOf<A>
    ? AnyOf<ItemOf<A>>[]
    : true extends IsUnion<LengthOf<A>>
      ? AnyOf<ItemOf<A>>[]
      : TupleOf<A, LengthOf<A>>;

type RequiredInAll<O> = Exclude<keyof O, OptionalKeysOf<O>>;
type AnyObject<O> = [O] extends [never]
  ? never
  : { [K in RequiredInAll<O>]: AnyOf<ValuesAt<O, K>> } & { [K in Exclude<KeysOf<O>, RequiredInAll<O>>]?: AnyOf<ValuesAt<O, K>> };

/**
 * One type that admits what any member of the union `U` admits, member by member down the tree:
 * objects merge (a field present in every member stays required, any other is optional, its type
 * the union of the members'), arrays and same-length tuples merge their items, primitives stay.
 * Kit gives one result type per way of asking (encoding, details, ...); the node's handlers build
 * each answer with one type for all of them, so they are compared with the merged shape: every
 * field the node sends must have a type kit gives that field for some way of asking.
 */
export type AnyOf<U> = Exclude<U, object> | AnyArray<Arrays<U>> | AnyObject<Objects<U>>;

// ---- config keys a client may send ----

type AcceptedObjects<T> = Objects<Exclude<T, null | undefined>>;

/**
 * Dotted paths of the object keys in `Sent` (what a client may send) that `Accepted` (what the
 * node's params parse) has no key for: options the node would silently ignore. Never, when each
 * is parsed.
 */
export type UnparsedKeys<Sent, Accepted, Path extends string = ''> = Sent extends readonly unknown[]
  ? { [I in keyof Sent]-?: UnparsedKeys<Sent[I], I extends keyof NonNullable<Accepted> ? NonNullable<Accepted>[I] : ItemOf<Accepted>, `${Path}[${I & string}]`> }[number]
  : Sent extends object
    ? {
        [K in keyof Sent & string]-?: K extends KeysOf<AcceptedObjects<Accepted>>
          ? UnparsedKeys<Sent[K], ValuesAt<AcceptedObjects<Accepted>, K>, `${Path}.${K}`>
          : `${Path}.${K}`;
      }[keyof Sent & string]
    : never;

// ---- corrections ----

type Equals<A, B> = (<G>() => G extends A ? 1 : 2) extends <G>() => G extends B ? 1 : 2 ? true : false;

/** What a correction does to the type at its path. */
export type Correction = { set: unknown } | { widen: unknown } | { optional: PropertyKey };

/**
 * `T` corrected at `Path` (keys and tuple positions joined by dots, `[]` for each item of an array,
 * '' for `T` itself): `{ set: X }` puts X there, `{ widen: X }` adds X to what is there, and
 * `{ optional: 'a' | 'b' }` makes those fields of the object there optional.
 */
export type Patch<T, Path extends string, C extends Correction> = Path extends ''
  ? Apply<T, C>
  : Path extends `${infer Head}.${infer Rest}`
    ? PatchAt<T, Head, Rest, C>
    : PatchAt<T, Path, '', C>;
type PatchAt<T, Head extends string, Rest extends string, C extends Correction> = Head extends '[]'
  ? T extends readonly (infer Item)[]
    ? Patch<Item, Rest, C>[]
    : T
  : T extends object
    ? { [K in keyof T]: K extends Head ? Patch<T[K], Rest, C> : T[K] }
    : T;
type Apply<T, C extends Correction> = C extends { set: infer X }
  ? X
  : C extends { widen: infer X }
    ? T | X
    : C extends { optional: infer Keys extends PropertyKey }
      ? T extends object
        ? Omit<T, Keys> & Partial<Pick<T, Keys & keyof T>>
        : T
      : never;
