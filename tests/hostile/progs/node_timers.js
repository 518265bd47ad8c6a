// tests/hostile/node.sh: timers, promises, async functions, microtasks,
// a caught exception and enough garbage for V8's collector to walk the
// stack.  Prints in a fixed order and exits 4.
'use strict';
const out = [];
const sleep = (ms, v) => new Promise((res) => setTimeout(() => res(v), ms));

function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

async function worker(id) {
	let acc = 0;
	for (let i = 0; i < 3; i++) {
		acc += await sleep(1 + id, fib(12 + i));
		const junk = [];
		for (let k = 0; k < 20000; k++) junk.push({ k, s: 'x' + k });
		acc += junk.length;
	}
	return `worker ${id}: ${acc}`;
}

async function main() {
	process.nextTick(() => out.push('tick'));
	queueMicrotask(() => out.push('microtask'));
	setImmediate(() => out.push('immediate'));
	const results = await Promise.all([0, 1, 2, 3].map(worker));
	try {
		JSON.parse('{broken');
	} catch (e) {
		out.push('caught ' + e.name);
	}
	const rejected = await Promise.allSettled([sleep(2, 1), Promise.reject(new Error('no'))]);
	out.push(rejected.map((r) => r.status).join(','));
	let n = 0;
	await new Promise((res) => {
		const t = setInterval(() => {
			if (++n === 5) {
				clearInterval(t);
				res();
			}
		}, 1);
	});
	out.push('interval ' + n);
	console.log(results.join('\n'));
	console.log(out.join('\n'));
	process.exitCode = 4;
}
main();
