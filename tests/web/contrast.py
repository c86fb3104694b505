"""WCAG AA contrast of a page's text: every visible text node under a selector against the
first opaque background behind it (4.5:1; disabled controls are exempt, as WCAG says)."""

from __future__ import annotations

from typing import Any

CONTRAST_JS = """(selector) => {
  const channels = (c) => c.match(/[\\d.]+/g).map(Number);
  const lum = (c) => channels(c).slice(0, 3).map((v) => {
    v /= 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  }).reduce((sum, v, i) => sum + v * [0.2126, 0.7152, 0.0722][i], 0);
  const opaque = (c) => { const m = channels(c); return m.length < 4 || m[3] > 0.5; };
  const behind = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = getComputedStyle(e).backgroundColor;
      if (opaque(c)) return c;
    }
    return 'rgb(255, 255, 255)';
  };
  const low = [];
  for (const root of document.querySelectorAll(selector)) {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      if (!n.textContent.trim() || el.closest('button:disabled, [hidden], svg')) continue;
      if (!el.getClientRects().length) continue;  // not rendered (display: none)
      const style = getComputedStyle(el);
      const a = lum(style.color), b = lum(behind(el));
      const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
      if (ratio < 4.5) low.push(`${n.textContent.trim().slice(0, 40)}: ${ratio.toFixed(2)}`);
    }
  }
  return low;
}"""


def low_contrast(page: Any, selector: str) -> list[str]:
    """The texts under ``selector`` below 4.5:1, with their ratios."""
    return list(page.evaluate(CONTRAST_JS, selector))
