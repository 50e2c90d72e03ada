// Placeholder replaced below once the store exists.
export default function setup(): void {}
