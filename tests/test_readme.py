"""The README's python code blocks run as written: each one is a doctest."""

import doctest
import pathlib
import re

import pytest

README = pathlib.Path(__file__).resolve().parent.parent / "README.md"
BLOCKS = re.findall(r"^```python\n(.*?)^```", README.read_text(encoding="utf-8"),
                    flags=re.S | re.M)


def test_readme_has_python_blocks():
    assert BLOCKS, "no ```python block found in README.md"


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_block_runs_as_doctest(index):
    block = BLOCKS[index]
    test = doctest.DocTestParser().get_doctest(block, {}, f"README.md block {index}",
                                               str(README), 0)
    # Every python block is a doctest (>>> with its output), so none can rot.
    assert test.examples, f"README.md python block {index} has no >>> examples"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    out = []
    runner.run(test, out=out.append)
    assert runner.failures == 0, "".join(out)
