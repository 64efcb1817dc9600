"""docs/architecture.md stays true to the code: every module it names exists."""
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, 'docs', 'architecture.md')
NAME = re.compile(r'^[\w.]+(\.py|/)$')


def _doc():
    with open(DOC, encoding='utf-8') as f:
        return f.read()


def tree_paths(text):
    """Paths of the layout tree: indentation gives the parent directory."""
    block = text.split('```\nframework/\n', 1)[1].split('```', 1)[0]
    paths, parents = [], {0: 'framework/'}
    for line in block.splitlines():
        indent = len(line) - len(line.lstrip(' '))
        parent = parents.get(indent - 2)
        if parent is None:
            continue
        names = []
        for token in line.split():
            if not NAME.match(token):
                break
            names.append(token)
        for n in names:
            paths.append(parent + n)
        if len(names) == 1 and names[0].endswith('/'):
            parents[indent] = parent + names[0]
    return paths


def prose_paths(text):
    """`a/b.py` and `a/b/` style paths quoted in the text."""
    found = []
    for quoted in re.findall(r'`([^`\s]+)`', text):
        path = quoted.split(':', 1)[0]
        if '/' in path and NAME.match(path.rsplit('/', 1)[-1] or path.rstrip('/') + '/'):
            found.append(path)
    return found


def _exists(path):
    for base in (ROOT, os.path.join(ROOT, 'framework')):
        if os.path.exists(os.path.join(base, path)):
            return True
    return False


def test_the_layout_tree_names_existing_modules():
    paths = tree_paths(_doc())
    assert len(paths) > 30
    missing = [p for p in paths if not _exists(p)]
    assert not missing, "docs/architecture.md names modules that do not exist: %s" % missing


def test_paths_in_the_text_exist():
    paths = prose_paths(_doc())
    assert len(paths) > 10
    missing = [p for p in paths if not _exists(p)]
    assert not missing, "docs/architecture.md names paths that do not exist: %s" % missing


def test_the_readme_points_to_the_architecture_page():
    with open(os.path.join(ROOT, 'README.md'), encoding='utf-8') as f:
        assert 'docs/architecture.md' in f.read()
