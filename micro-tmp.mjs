import Database from 'better-sqlite3';
const db = new Database(process.env.DB || '/tmp/mixw/mix.db', { readonly: true });
if (process.env.MMAP) db.pragma(`mmap_size = ${process.env.MMAP}`);
if (process.env.CACHE) db.pragma(`cache_size = ${process.env.CACHE}`);
const r = () => [String(1 + ((Math.random()*20000)|0))];
const q = {
  ansMeta: db.prepare("SELECT visible_from FROM answers WHERE operation = 'getArtikelDetails' AND key = ?"),
  ansCompact: db.prepare("SELECT compact FROM answers WHERE operation = 'getArtikelDetails' AND key = ?"),
  rec: db.prepare("SELECT doc FROM records WHERE kind = 'artikel' AND id = ?"),
};
for (let round = 0; round < 3; round++) for (const [name, st] of Object.entries(q)) {
  const t = process.hrtime.bigint();
  for (let i = 0; i < 20000; i++) st.get(...r());
  console.log(name, (Number(process.hrtime.bigint() - t) / 1000 / 20000).toFixed(2), 'us');
}
console.log('rss MB', (process.memoryUsage().rss/1048576)|0);
