"""Text processing: str methods (split/join/strip/lower/replace/startswith/find), formatting
(%, format, f-strings), word counting in a dict, sorting by key, bytes encode/decode."""

from workloads import lcg

_SYL = ("ka", "lo", "mi", "ne", "ru", "ta", "shi", "po", "en", "da", "x", "qua")
_R = lcg(31337, 120000)
WORDS = ["".join(_SYL[_R[i * 3 + k] % len(_SYL)] for k in range(1 + _R[i] % 3)) for i in range(40000)]
TEXT = " ".join(w.capitalize() if i % 7 == 0 else w for i, w in enumerate(WORDS))
TEXT = ". ".join(TEXT[i : i + 80].strip() for i in range(0, len(TEXT), 80))


def one_loop():
    counts = {}
    for word in TEXT.lower().replace(".", " ").split():
        counts[word] = counts.get(word, 0) + 1
    top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:25]
    lines = []
    for rank, (word, n) in enumerate(top, 1):
        lines.append("%3d %-10s %5d" % (rank, word, n))
        lines.append("{:>3} {:<10} {:5d}".format(rank, word.upper(), n))
        lines.append(f"{rank:03d}|{word.title():^12}|{n / len(counts):.4f}")
    report = "\n".join(lines)
    sentences = [s.strip() for s in TEXT.split(".") if s.strip()]
    caps = sum(1 for s in sentences if s[:1].isupper())
    hits = sum(1 for w in WORDS if w.startswith("ka") or w.endswith("en"))
    pos = 0
    found = 0
    while True:
        pos = TEXT.find("shi", pos)
        if pos < 0:
            break
        found += 1
        pos += 3
    raw = report.encode("utf-8")
    back = raw.decode("utf-8")
    return len(back) + caps + hits + found + len(counts) + len(" ".join(reversed(sentences[:50])))


def run(loops):
    result = 0
    for _ in range(loops):
        result = one_loop()
    return result
