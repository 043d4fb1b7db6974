// A string enum as plain JSON Schema `enum`: one clear validation message ("must be one of
// ...") instead of an anyOf of consts. Registered so TypeBox's own compiler checks it too.
import { Kind, Type, TypeRegistry, type TUnsafe } from '@sinclair/typebox';

if (!TypeRegistry.Has('StringEnum')) {
  TypeRegistry.Set<{ enum: string[] }>('StringEnum', (schema, value) => typeof value === 'string' && schema.enum.includes(value));
}

export function StringEnum<const T extends readonly string[]>(values: T, options: { default?: T[number]; description?: string } = {}): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ [Kind]: 'StringEnum', type: 'string', enum: [...values], ...options });
}
