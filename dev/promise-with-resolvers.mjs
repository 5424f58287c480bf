// DSH's agent loop uses Promise.withResolvers (ES2024); Node 20 lacks it. Imported first by
// agent-stack.mjs (demo, bench) and run by vitest as its setup file, so every Node 20 host has it.
Promise.withResolvers ??= function withResolvers() {
  let resolve, reject
  const promise = new Promise((res, rej) => { resolve = res; reject = rej })
  return { promise, resolve, reject }
}
