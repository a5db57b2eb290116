import { describe, expect, it } from 'vitest';
import { mimeTypeOf, outputFilter, refusedType } from '../../src/runtime/output-modes.js';

describe('output modes', () => {
  it('no modes accept anything, with one shared matcher (nothing built per turn)', () => {
    const accepts = outputFilter([]);
    expect(accepts('image/png')).toBe(true);
    expect(outputFilter([])).toBe(accepts);
  });

  it('matches exactly, ignoring case and parameters, on either side', () => {
    const accepts = outputFilter(['Text/HTML; charset=utf-8', 'application/json']);
    expect(accepts('text/html')).toBe(true);
    expect(accepts('TEXT/html;level=1')).toBe(true);
    expect(accepts('application/json')).toBe(true);
    expect(accepts('text/plain')).toBe(false);
    expect(accepts('application/jsonx')).toBe(false);
  });

  it('`type/*`, a bare `type`, `*/*` and `*` are wildcards', () => {
    expect(outputFilter(['image/*'])('image/png')).toBe(true);
    expect(outputFilter(['image/*'])('imagex/png')).toBe(false);
    expect(outputFilter(['text'])('text/markdown')).toBe(true);
    expect(outputFilter(['text'])('application/json')).toBe(false);
    expect(outputFilter(['text/plain', '*/*'])('video/mp4')).toBe(true);
    expect(outputFilter(['*'])('video/mp4')).toBe(true);
  });

  it('a part counts as its type: text/plain, application/json, the file mimeType or application/octet-stream', () => {
    expect(mimeTypeOf({ kind: 'text', text: 'x' })).toBe('text/plain');
    expect(mimeTypeOf({ kind: 'data', data: {} })).toBe('application/json');
    expect(mimeTypeOf({ kind: 'file', file: { uri: 'https://x/y.png', mimeType: 'image/png' } })).toBe('image/png');
    expect(mimeTypeOf({ kind: 'file', file: { uri: 'https://x/y' } })).toBe('application/octet-stream');
  });

  it('names the first refused part type', () => {
    const accepts = outputFilter(['text/plain']);
    expect(refusedType(accepts, [{ kind: 'text', text: 'a' }])).toBeUndefined();
    expect(
      refusedType(accepts, [
        { kind: 'text', text: 'a' },
        { kind: 'data', data: {} },
      ]),
    ).toBe('application/json');
  });
});
