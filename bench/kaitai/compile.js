// Compiles spark_save.ksy to JavaScript with the kaitai-struct-compiler npm package.
// Usage: node compile.js OUT_DIR   (run from bench/, after `npm install` there)
const fs = require("fs");
const path = require("path");
const yaml = require("js-yaml");
const compiler = require("kaitai-struct-compiler");

const out = process.argv[2];
const ksy = yaml.load(fs.readFileSync(path.join(__dirname, "spark_save.ksy"), "utf8"));
compiler.compile("javascript", ksy, null, false).then((files) => {
    fs.mkdirSync(out, { recursive: true });
    for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(out, name), text);
    console.log("kaitai-struct-compiler " + compiler.version + ": " + Object.keys(files).join(", "));
});
