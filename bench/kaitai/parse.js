// Parses a .spark_save with the Kaitai-generated parser and counts what it read, so nothing
// is skipped lazily. Usage: node parse.js GENERATED_DIR FILE
const fs = require("fs");
const path = require("path");
const KaitaiStream = require("kaitai-struct/KaitaiStream");
const { SparkSave } = require(path.resolve(process.argv[2], "SparkSave.js"));

const data = fs.readFileSync(process.argv[3]);
const save = new SparkSave(new KaitaiStream(data));
let components = 0, properties = 0;
for (const e of save.entities) {
    components += e.components.length;
    for (const c of e.components) properties += c.properties.length;
}
console.log(`entities ${save.entities.length} components ${components} properties ${properties} custom ${save.customState.length}`);
