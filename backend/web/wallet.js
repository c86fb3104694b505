// Wallets: EIP-6963 discovery of injected providers, with window.ethereum (EIP-1193) as fallback.

const found = new Map(); // uuid -> {info, provider}

window.addEventListener("eip6963:announceProvider", (event) => {
  const { info, provider } = event.detail || {};
  if (info && provider && typeof provider.request === "function") found.set(info.uuid, { info, provider });
});

/** Every wallet the page can use: EIP-6963 announcements, else the legacy window.ethereum. */
export async function discoverWallets(waitMs = 150) {
  window.dispatchEvent(new Event("eip6963:requestProvider"));
  await new Promise((resolve) => setTimeout(resolve, waitMs));
  const wallets = [...found.values()];
  if (!wallets.length && window.ethereum && typeof window.ethereum.request === "function") {
    const info = { uuid: "window.ethereum", name: "Browser wallet", icon: "", rdns: "" };
    wallets.push({ info, provider: window.ethereum });
  }
  return wallets;
}

function utf8Hex(text) {
  return "0x" + [...new TextEncoder().encode(text)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export class Wallet {
  constructor(provider, info) {
    this.provider = provider;
    this.info = info;
    this.address = null;
  }

  async connect() {
    const accounts = await this.provider.request({ method: "eth_requestAccounts" });
    if (!accounts || !accounts.length) throw new Error("the wallet returned no account");
    this.address = accounts[0];
    return this.address;
  }

  /** EIP-191 personal_sign of a text (the EIP-4361 message). */
  signMessage(text) {
    return this.provider.request({ method: "personal_sign", params: [utf8Hex(text), this.address] });
  }

  /** Send an unsigned transaction the server built (hex fields) and wait for its receipt. */
  async sendTransaction(tx, { timeoutMs = 60000 } = {}) {
    const request = { from: tx.from, to: tx.to, data: tx.data, value: tx.value, chainId: tx.chainId };
    if (tx.gas) request.gas = tx.gas;
    const hash = await this.provider.request({ method: "eth_sendTransaction", params: [request] });
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const receipt = await this.provider.request({ method: "eth_getTransactionReceipt", params: [hash] });
      if (receipt) {
        if (receipt.status !== "0x1" && receipt.status !== 1) throw new Error(`transaction ${hash} reverted`);
        return hash;
      }
      if (Date.now() > deadline) throw new Error(`transaction ${hash} not mined in time`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}
