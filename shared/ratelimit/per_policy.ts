/**
 * One limiter instance per policy (max requests per window), created on first
 * use: a key's counter under one policy never mixes with another policy's.
 */
export function perPolicy<T>(create: (max: number, windowSeconds: number) => T): (
  max: number,
  windowSeconds: number,
) => T {
  const instances = new Map<string, T>();
  return (max, windowSeconds) => {
    const id = `${max}:${windowSeconds}`;
    let instance = instances.get(id);
    if (instance === undefined) {
      instance = create(max, windowSeconds);
      instances.set(id, instance);
    }
    return instance;
  };
}
