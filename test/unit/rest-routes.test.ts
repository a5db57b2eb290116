import { describe, expect, it } from 'vitest';
import { resolveRestRoute, segmentsOf } from '../../src/protocol/rest.js';

describe('REST paths into segments', () => {
  it('splits at every slash as String.split does, empty segments included', () => {
    const paths = [
      '',
      '/',
      '//',
      'message:send',
      'tasks/abc',
      'tasks/abc/',
      '/tasks',
      'tasks//abc',
      'tasks/abc/pushNotificationConfigs/c1',
    ];
    for (const path of paths) expect(segmentsOf(path)).toEqual(path.split('/'));
  });

  it('decodes percent-encoding per segment, and refuses a bad encoding', () => {
    expect(segmentsOf('tasks/abc%3Acancel')).toEqual(['tasks', 'abc:cancel']);
    expect(segmentsOf('tasks/a%2Fb')).toEqual(['tasks', 'a/b']);
    expect(segmentsOf('tasks/%E0%A4%A')).toBeUndefined();
  });

  it('an empty segment never matches a route', () => {
    expect(resolveRestRoute('POST', segmentsOf('message:send/') ?? []).operation).toBe('unknown');
    expect(resolveRestRoute('GET', segmentsOf('tasks//pushNotificationConfigs') ?? []).operation).toBe('unknown');
    expect(resolveRestRoute('POST', segmentsOf('message:send') ?? []).operation).toBe('message/send');
  });
});
