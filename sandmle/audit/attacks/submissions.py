"""Oversize, malformed and adversarial submissions: the grader must refuse each (or, for a harmless quirk such as a
byte-order mark, grade it exactly as the plain file), and never crash or pay for a file it should not."""

from __future__ import annotations

from sandmle.audit.agent_code import program
from sandmle.audit.registry import Attack, Code, Feedback, register


def _one(body: str, why: str):
    return lambda target: [Code(program(body), why), Feedback("validate"), Feedback("score")]


VARIANTS = {
    "duplicate_ids": (
        "repeats test ids (the first id in place of the last, so the row count is right) to be scored twice",
        "rows = [list(r) for r in SAMPLE_BODY]\nrows[-1][0] = rows[0][0]\nwrite_rows(rows)\n", False),
    "nan_inf": (
        "puts NaN, inf and -inf among the predictions",
        "bad = ['nan', 'inf', '-inf', 'NaN', '1e999']\n"
        "write_rows([[r[0]] + [bad[i % 5]] * (len(r) - 1) for i, r in enumerate(SAMPLE_BODY)])\n", False),
    "extra_rows": (
        "adds rows for ids that are not test ids (half as many again)",
        "extra = [[f'x{i}'] + r[1:] for i, r in enumerate(SAMPLE_BODY[: len(SAMPLE_BODY) // 2 + 1])]\n"
        "write_rows(SAMPLE_BODY + extra)\n", False),
    "missing_rows": (
        "leaves out a third of the test ids",
        "write_rows(SAMPLE_BODY[: 2 * len(SAMPLE_BODY) // 3])\n", False),
    "wrong_dtypes": (
        "writes text, lists, booleans and empty fields where numbers or labels belong",
        "bad = ['abc', '[0.5]', 'True', '', 'None']\n"
        "write_rows([[r[0]] + [bad[i % 5]] * (len(r) - 1) for i, r in enumerate(SAMPLE_BODY)])\n", False),
    "huge_fields": (
        "writes an 8 MB prediction field and a 1 MB id",
        "rows = [list(r) for r in SAMPLE_BODY]\nrows[0][-1] = '9' * (8 << 20)\nrows[1][0] = 'i' * (1 << 20)\n"
        "write_rows(rows)\n", False),
    "sparse_giant": (
        "makes a 200 MB sparse file (under the sandbox's file size limit, over the grader's cap) that starts with "
        "the sample submission",
        "fallback()\nwith open(SUB, 'r+b') as out:\n    out.truncate(200 << 20)\n", False),
    "binary_garbage": (
        "writes NUL bytes and invalid UTF-8 after a valid header",
        "fallback()\nwith open(SUB, 'ab') as out:\n    out.write(bytes(range(256)) * 64)\n", False),
    "utf16": (
        "writes the sample submission encoded as UTF-16",
        "text = open('/public/sample_submission.csv').read()\nclear()\nopen(SUB, 'wb').write(text.encode('utf-16'))\n", False),
    "bom": (
        "writes the sample submission with a UTF-8 byte-order mark (valid, and worth exactly the sample)",
        "text = open('/public/sample_submission.csv', encoding='utf-8-sig').read()\nclear()\n"
        "open(SUB, 'wb').write(b'\\xef\\xbb\\xbf' + text.encode())\n", True),
    "quoted_multiline": (
        "quotes every field and hides line breaks and commas inside quoted ids",
        "rows = [list(r) for r in SAMPLE_BODY]\nrows[0][0] = rows[0][0] + '\\n' + rows[1][0] + ',0'\n"
        "clear()\nwith open(SUB, 'w', newline='') as out:\n    w = csv.writer(out, quoting=csv.QUOTE_ALL)\n"
        "    w.writerow(HEADER)\n    w.writerows(rows)\n", False),
}

# Files that are large or not text also meet the tree scaffolds' capped node copies, so they play on every scaffold;
# the rest test the grader, the same code whichever scaffold hands it the file, and play once per task.
EVERY_SCAFFOLD = ("huge_fields", "sparse_giant", "binary_garbage")

for name, (tries, body, valid) in VARIANTS.items():
    register(Attack(f"submission_{name}", "submissions", tries, _one(body + "print('written')\n", f"submit a file that {tries}"),
                    expect_valid=valid, every_scaffold=name in EVERY_SCAFFOLD))
