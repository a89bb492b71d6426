/** The error a call throws or a promise rejects with, when a test expects one of a given class. */
import assert from 'node:assert/strict';

type ErrorClass<E> = abstract new (...args: never[]) => E;

const check = <E>(e: unknown, type: ErrorClass<E>): E => {
  if (e instanceof type) return e;
  throw e;
};

/** The `type` error `p` rejects with; the test fails if it resolves, and other errors pass through. */
export async function rejectionOf<E>(p: Promise<unknown>, type: ErrorClass<E>): Promise<E> {
  try {
    await p;
  } catch (e) {
    return check(e, type);
  }
  assert.fail(`expected ${type.name}`);
}

/** The `type` error `fn` throws; the test fails if it returns, and other errors pass through. */
export function thrownBy<E>(fn: () => unknown, type: ErrorClass<E>): E {
  try {
    fn();
  } catch (e) {
    return check(e, type);
  }
  assert.fail(`expected ${type.name}`);
}
