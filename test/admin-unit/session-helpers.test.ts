// The admin's own client-side rules (pure functions, no browser): field violations of the
// canonical error body onto form fields, and grants over the permission tree.
import { describe, expect, it } from 'vitest';
import { ApiError } from '@siteplatform/sdk';
import { applyFieldErrors, errorMessage, fieldErrorsOf } from '../../admin/src/lib/error-fields.js';
import { holds } from '../../admin/src/lib/grants.js';

const invalid = (violations: Array<{ field: string; description: string }>) =>
  new ApiError({
    code: 400,
    status: 'INVALID_ARGUMENT',
    message: 'the request is invalid',
    details: [...violations.map((v) => ({ type: 'FIELD_VIOLATION' as const, ...v })), { type: 'REQUEST_INFO', request_id: 'req_1' }],
  } as never);

describe('field violations onto a form', () => {
  it('puts each violation under the field it names, as a sentence', () => {
    expect(fieldErrorsOf(invalid([{ field: 'password', description: 'must contain a letter and a digit' }]))).toEqual({ password: 'Must contain a letter and a digit.' });
  });

  it('answers whether the form’s fields explain the whole error', () => {
    let set: Record<string, string> = {};
    const form = { setErrors: (e: Record<string, string>) => void (set = e) };
    expect(applyFieldErrors(form, invalid([{ field: 'email', description: 'is taken' }]), ['email', 'password'])).toBe(true);
    expect(set).toEqual({ email: 'Is taken.' });
    // A violation of a field the form does not show: the error is shown as a message too.
    expect(applyFieldErrors(form, invalid([{ field: 'email', description: 'is taken' }, { field: 'captcha_token', description: 'is required' }]), ['email'])).toBe(false);
    expect(applyFieldErrors(form, new Error('offline'), ['email'])).toBe(false);
    expect(set).toEqual({});
  });

  it('words a failure for people', () => {
    expect(errorMessage(invalid([]))).toBe('The request is invalid');
    expect(errorMessage(new TypeError('Failed to fetch'))).toMatch(/could not be reached/);
  });
});

describe('grants over the permission tree', () => {
  const grants = [
    { section: 'website', access: 'READ' as const },
    { section: 'website.blog', access: 'WRITE' as const },
  ];
  it('covers a section and those beneath it; WRITE implies READ', () => {
    expect(holds(grants, 'website.content', 'READ')).toBe(true);
    expect(holds(grants, 'website.content', 'WRITE')).toBe(false);
    expect(holds(grants, 'website.blog', 'WRITE')).toBe(true);
    expect(holds(grants, 'account.members', 'READ')).toBe(false);
    // `website` does not cover a section that merely starts with the same letters.
    expect(holds([{ section: 'ai', access: 'WRITE' }], 'ai_billing', 'READ')).toBe(false);
  });
  it("reading section '' needs a membership only (the server's anyMember), writing it is not implied", () => {
    expect(holds([{ section: 'website.blog', access: 'READ' }], '', 'READ')).toBe(true);
    expect(holds([], '', 'WRITE')).toBe(false);
  });
});
