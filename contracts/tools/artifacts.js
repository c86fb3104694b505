#!/usr/bin/env node
// Copies the ABI and bytecode the backend needs from forge's out/ into artifacts/, and those
// of the benchmark and test contracts (test/mocks/) into test/artifacts/. Both are committed
// so the backend, the benchmarks and the tests never need a compiler. With --check it writes nothing and exits 1
// when the committed files differ from the build (CI runs this after every build).
//   node tools/artifacts.js [--check] [--out DIR]
"use strict";
const fs = require("fs");
const path = require("path");

// The artifacts the backend ships (artifacts/) and the ones only benchmarks and tests use
// (test/artifacts/, built from test/mocks/).
const CONTRACTS = [
  ["DEWToken", "DEWToken.sol"],
  ["AvatarNFT", "AvatarNFT.sol"],
  ["VIPPass", "VIPPass.sol"],
  ["ScholarshipRegistry", "ScholarshipRegistry.sol"],
  ["MatchSettlement", "MatchSettlement.sol"],
  ["Accessories", "Accessories.sol"],
  ["Shop", "Shop.sol"],
  ["Market", "Market.sol"],
  ["GameCenter", "GameCenter.sol"],
  ["Contributions", "Contributions.sol"],
];
const TEST_CONTRACTS = [
  ["PlainERC721", "PlainERC721.sol"], // benchmark baseline only
  ["ERC6551BenchRegistry", "ERC6551Bench.sol"], // benchmark only (equip via token-bound accounts)
  ["ERC6551BenchAccount", "ERC6551Bench.sol"], // benchmark only
  ["FeeSplitHarness", "FeeSplitHarness.sol"], // tests of the Python twin only
];

const root = path.join(__dirname, "..");
const args = process.argv.slice(2);
const check = args.includes("--check");
const outIndex = args.indexOf("--out");
const outDir = outIndex >= 0 ? path.resolve(args[outIndex + 1]) : path.join(root, "out");
const artifactsDirs = [
  [path.join(root, "artifacts"), CONTRACTS],
  [path.join(root, "test", "artifacts"), TEST_CONTRACTS],
];

function render(name, file) {
  const built = JSON.parse(fs.readFileSync(path.join(outDir, file, name + ".json"), "utf8"));
  const artifact = {
    contractName: name,
    abi: built.abi,
    bytecode: built.bytecode.object,
    deployedBytecode: built.deployedBytecode.object,
  };
  return JSON.stringify(artifact, null, 2) + "\n";
}

let stale = [];
for (const [artifactsDir, contracts] of artifactsDirs) {
  if (!check) fs.mkdirSync(artifactsDir, { recursive: true });
  for (const [name, file] of contracts) {
    const target = path.join(artifactsDir, name + ".json");
    const fresh = render(name, file);
    const committed = fs.existsSync(target) ? fs.readFileSync(target, "utf8") : null;
    if (committed === fresh) continue;
    if (check) stale.push(name);
    else fs.writeFileSync(target, fresh);
  }
}
if (stale.length) {
  process.stderr.write(
    "artifacts/ differ from a fresh build for: " + stale.join(", ") +
      "\nrun `npm run artifacts` in contracts/ and commit the result\n",
  );
  process.exit(1);
}
