// npm run bench: the performance comparisons of DESIGN.md section 11 will live here.
console.log('bench: no benchmarks yet (DESIGN.md section 11 lists the targets)');
