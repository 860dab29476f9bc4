#!/usr/bin/env python3
"""The compile report in a real browser.

usage: check_report.py EMBER SCRIPT OUTDIR

Runs `ember compile --report OUTDIR/report --show guards,side_effects SCRIPT`, then loads every
page in headless Chromium (`--dump-dom`, the DOM after the page's script ran) and checks:
  - every section of the index and of each compile page is there;
  - every link resolves: `#id` to an element of the page, `page.html#id` to a file of the report
    and an element in it; nothing is fetched from elsewhere (no http(s), no external script,
    stylesheet, image or font);
  - the side effects of each compile link to the residual instructions that replay them, and
    those instructions link back to their side effect;
  - the guards and side effects the page shows are the ones the text log printed;
  - the page's script ran (it marks <html class="js-ready">) and the browser logged no console
    message (an error, an uncaught exception, a resource that failed to load);
and takes a screenshot of the first compile at 1366x768 (OUTDIR/report-1366x768.png).
Exits 77 (skipped) with a message when no Chromium is installed."""
import html.parser
import os
import re
import shutil
import subprocess
import sys
import tempfile

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--enable-logging=stderr", "--v=0"]
INDEX_SECTIONS = ["summary", "compiles"]
COMPILE_SECTIONS = ["source", "original", "residual", "effects", "decompiled", "hooks", "breaks", "modtracker",
                    "guards", "graph", "backward", "runtime"]
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


def chromium(browser, *args):
    """Run headless Chromium; returns (stdout, console lines)."""
    with tempfile.TemporaryDirectory() as profile:
        r = subprocess.run([browser, *CHROMIUM_FLAGS, "--user-data-dir=" + profile, *args],
                           capture_output=True, text=True, timeout=120)
    console = [l for l in r.stderr.splitlines() if ":CONSOLE" in l]
    return r.stdout, console


class Page(html.parser.HTMLParser):
    """What the checks need of a DOM: ids, links, data-links, classes, table rows."""

    def __init__(self, text):
        super().__init__()
        self.ids, self.hrefs, self.data_links, self.srcs = set(), [], [], []
        self.html_classes = ""
        self.elements = []            # (tag, attrs dict)
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.elements.append((tag, a))
        if tag == "html":
            self.html_classes = a.get("class", "")
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "a" and "href" in a:
            self.hrefs.append(a["href"])
        if "data-links" in a:
            self.data_links.append(a["data-links"])
        for attr in ("src", "srcset"):
            if attr in a:
                self.srcs.append(a[attr])
        if tag == "link" and "href" in a:
            self.srcs.append(a["href"])


def text_log(log, artifact):
    """The rows the text log printed under `[f/c] [__artifact]` headers, per compile id."""
    rows, current = {}, None
    for line in log.splitlines():
        m = re.match(r"\[(\d+)/(\d+)\] \[__(\w+)\]", line)
        if m:
            current = (int(m.group(1)), int(m.group(2))) if m.group(3) == artifact else None
            continue
        if current is not None and line.startswith("  "):
            rows.setdefault(current, []).append(line)
    return rows


def main():
    ember, script, outdir = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3]
    browser = find_chromium()
    if not browser:
        print("SKIP: Chromium is not installed (Debian: apt-get install chromium; tools/bootstrap.sh --tests "
              "installs it), so the report cannot be checked in a browser")
        return 77
    report = os.path.join(outdir, "report")
    shutil.rmtree(report, ignore_errors=True)
    run = subprocess.run([ember, "compile", "--report", report, "--show", "guards,side_effects", script],
                         capture_output=True, text=True, timeout=300)
    if run.returncode != 0:
        fail("ember compile --report exited %d:\n%s" % (run.returncode, run.stderr[-2000:]))
        return 1
    if "index.html" not in run.stderr:
        fail("ember did not say where the report is")
    pages = sorted(f for f in os.listdir(report) if f.endswith(".html"))
    print("report:", report, "pages:", ", ".join(pages))
    doms = {}
    for name in pages:
        dom, console = chromium(browser, "--dump-dom", "file://" + os.path.join(report, name))
        if console:
            fail("%s: console messages:\n  %s" % (name, "\n  ".join(console)))
        page = doms[name] = Page(dom)
        if "js-ready" not in page.html_classes.split():
            fail("%s: the page's script did not run to its end" % name)
        for src in page.srcs:
            fail("%s: loads an external resource %r" % (name, src))
        if re.search(r"""(src|href)\s*=\s*["']?https?:""", dom) or "@import" in dom or "url(" in dom:
            fail("%s: refers to a resource outside the report" % name)
    for name, page in doms.items():
        wanted = INDEX_SECTIONS if name == "index.html" else COMPILE_SECTIONS
        for sec in wanted:
            if sec not in page.ids:
                fail("%s: section #%s is missing" % (name, sec))
        for href in page.hrefs:
            target, _, frag = href.partition("#")
            if re.match(r"[a-z]+:", target):
                fail("%s: link outside the report: %s" % (name, href))
                continue
            other = doms.get(target or name)
            if other is None:
                fail("%s: broken link %s (no such page)" % (name, href))
            elif frag and frag not in other.ids:
                fail("%s: broken link %s (no element #%s)" % (name, href, frag))
        for links in page.data_links:
            for ident in links.split():
                if ident not in page.ids:
                    fail("%s: data-links names a missing element #%s" % (name, ident))
    index = doms.get("index.html")
    compile_pages = [p for p in pages if p != "index.html"]
    for p in compile_pages:
        if p not in index.hrefs:
            fail("index.html does not link %s" % p)

    # side effects <-> residual instructions, and agreement with the text log
    guards_log, effects_log = text_log(run.stderr, "guards"), text_log(run.stderr, "side_effects")
    linked_effects = 0
    for p in compile_pages:
        page = doms[p]
        cid = re.search(r'<span class="cid">\[(\d+)/(\d+)\]</span>', open(os.path.join(report, p)).read())
        key = (int(cid.group(1)), int(cid.group(2)))
        effect_rows = sorted(i for i in page.ids if re.fullmatch(r"e\d+", i))
        residual = {a.get("id") for t, a in page.elements if t == "div" and re.fullmatch(r"r\d+", a.get("id", ""))}
        for tag, a in page.elements:
            if tag == "tr" and re.fullmatch(r"e\d+", a.get("id", "")):
                replays = [l for l in a.get("data-links", "").split() if l.startswith("r")]
                if not replays:
                    fail("%s: side effect %s links no residual instruction" % (p, a["id"]))
                for r in replays:
                    if r not in residual:
                        fail("%s: side effect %s links %s, not a residual instruction" % (p, a["id"], r))
                linked_effects += bool(replays)
            if tag == "a" and "tag" in a.get("class", "").split() and a.get("href", "").startswith("#e"):
                if a["href"][1:] not in effect_rows:
                    fail("%s: a residual instruction links the missing side effect %s" % (p, a["href"]))
        want_effects = [l for l in effects_log.get(key, []) if not l.lstrip().startswith("object") and "(none)" not in l]
        if len(effect_rows) != len(want_effects):
            fail("%s: %d side effects shown, the text log printed %d" % (p, len(effect_rows), len(want_effects)))
        n_guards = sum(1 for i in page.ids if re.fullmatch(r"g\d+", i))
        if n_guards != len(guards_log.get(key, [])):
            fail("%s: %d guards shown, the text log printed %d" % (p, n_guards, len(guards_log.get(key, []))))
    if linked_effects == 0:
        fail("no side effect of %s is linked to residual instructions" % script)

    shot = os.path.join(outdir, "report-1366x768.png")
    first = next((p for p in compile_pages if doms[p].data_links), compile_pages[0] if compile_pages else "index.html")
    _, console = chromium(browser, "--window-size=1366,768", "--hide-scrollbars", "--screenshot=" + shot,
                          "file://" + os.path.join(report, first))
    if not os.path.exists(shot) or os.path.getsize(shot) < 10000 or open(shot, "rb").read(4) != b"\x89PNG":
        fail("no screenshot of %s" % first)
    else:
        print("screenshot:", shot)
    print("%d pages checked, %d side effects linked, %d failures" % (len(pages), linked_effects, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
