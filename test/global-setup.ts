/** Runs once before the suite: says which Node runs it (toolgate needs >= 22). */
export default function setup(): void {
  const major = Number(process.versions.node.split('.')[0]);
  process.stdout.write(`toolgate tests on Node ${process.version}\n`);
  if (major < 22) throw new Error(`toolgate needs Node >= 22, the tests run on ${process.version}: run them through npm (npm test), which uses the pinned node devDependency`);
}
