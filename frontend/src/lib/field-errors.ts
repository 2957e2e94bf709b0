/** One validation message with the dotted path of the field it belongs to ("arms.1.protocol"). */
export type FieldError = { path: string; message: string };

/**
 * Flattens a DRF error body into path/message pairs. DRF nests field maps
 * ({"arms": {"1": {"protocol": ["…"]}}}) or, for list serializers, lists with an empty
 * object per valid item ({"arms": [{}, {"protocol": ["…"]}]}).
 */
export function flattenFieldErrors(body: unknown, prefix = ''): FieldError[] {
  if (body === null || body === undefined) return [];
  if (typeof body === 'string') return [{ path: prefix, message: body }];
  if (Array.isArray(body)) {
    if (body.every((item) => typeof item === 'string')) {
      return body.map((message: string) => ({ path: prefix, message }));
    }
    return body.flatMap((item, index) => flattenFieldErrors(item, join(prefix, String(index))));
  }
  if (typeof body === 'object') {
    return Object.entries(body as Record<string, unknown>).flatMap(([key, value]) =>
      flattenFieldErrors(value, join(prefix, key)),
    );
  }
  // What is left is a primitive: a string as it is, anything else as its JSON.
  return [{ path: prefix, message: typeof body === 'string' ? body : (JSON.stringify(body) ?? '') }];
}

function join(prefix: string, key: string): string {
  return prefix ? `${prefix}.${key}` : key;
}

/** Messages for exactly this field path. */
export function messagesFor(errors: FieldError[], path: string): string[] {
  return errors.filter((error) => error.path === path).map((error) => error.message);
}
