import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

const eagerSerializers = SerializerSelector();

/**
 * Fastify's response serializers (fast-json-stringify), each compiled on its route's first answer
 * of that status rather than at start: compiling every route's response schemas took most of the
 * time between loading the code and listening. Passed as `schemaController.compilersFactory.buildSerializer`.
 */
export function lazySerializers(...factoryArgs: Parameters<typeof eagerSerializers>) {
  const compile = eagerSerializers(...factoryArgs);
  return (route: Parameters<typeof compile>[0]) => {
    let serialize: ((data: unknown) => string) | undefined;
    return (data: unknown) => {
      serialize ??= compile(route) as (data: unknown) => string;
      return serialize(data);
    };
  };
}
