import { describe, expect, it } from 'vitest';
import { validate, version } from 'uuid';
import { newId } from '../../src/a2a/ids.js';

describe('task ids', () => {
  it('are valid UUID v7, unique, and sort in creation order even within one millisecond', () => {
    const ids = Array.from({ length: 20_000 }, () => newId());
    for (const id of ids) {
      expect(validate(id)).toBe(true);
      expect(version(id)).toBe(7);
    }
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.slice().sort()).toEqual(ids);
  });
});
