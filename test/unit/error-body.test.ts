// Database-free: runs unchanged in both vitest projects.
import { describe, expect, it } from 'vitest';
import { AlreadyExists, ApiError, InvalidArgument, NotFound, PermissionDenied, renderError, renderErrorJson } from '../../src/platform/errors.js';

describe('renderErrorJson', () => {
  const errors: Array<[string, ApiError]> = [
    ['no details', new NotFound('website w1')],
    ['one detail', new PermissionDenied('your role does not hold WRITE on section website', 'SECTION_NOT_GRANTED')],
    ['field violations', new InvalidArgument('bad', [{ field: 'title', description: 'is required' }, { field: 'url_key', description: 'too long' }])],
    ['a detail with a field', new AlreadyExists('url_key "a" is taken', 'url_key')],
    ['a REQUEST_INFO of its own (replaced)', new ApiError('UNAVAILABLE', 'busy', [{ type: 'REQUEST_INFO', request_id: 'old' }])],
    ['text that JSON escapes', new NotFound('page "q\\u0000\n"')],
  ];

  it.each(errors)('is the same bytes as stringifying renderError: %s', (_, err) => {
    expect(renderErrorJson(err, 'req_abc')).toBe(JSON.stringify(renderError(err, 'req_abc')));
  });

  it('a reused error answers each request with its own request id, the rest unchanged', () => {
    const err = new PermissionDenied('your role does not hold READ on section website', 'SECTION_NOT_GRANTED');
    const first = JSON.parse(renderErrorJson(err, 'req_one'));
    const second = JSON.parse(renderErrorJson(err, 'req_two'));
    expect(first.error.details.at(-1)).toEqual({ type: 'REQUEST_INFO', request_id: 'req_one' });
    expect(second.error.details.at(-1)).toEqual({ type: 'REQUEST_INFO', request_id: 'req_two' });
    expect({ ...second.error, details: second.error.details.slice(0, -1) }).toEqual({ ...first.error, details: first.error.details.slice(0, -1) });
    expect(renderErrorJson(err, 'req_two')).toBe(JSON.stringify(renderError(err, 'req_two')));
  });
});
