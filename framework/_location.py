"""Where in the user's code something happens: the innermost frame outside this
package (converted ``@to_static`` code keeps the user's file names, so it counts
as the user's; generated plans, ``<static-plan-N>``, do not)."""
import os
import sys

_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def user_location(depth=1):
    """``'file:line'`` of the innermost caller outside the framework, or ''."""
    f = sys._getframe(depth)
    while f is not None:
        name = f.f_code.co_filename
        if not name.startswith('<') and not os.path.abspath(name).startswith(_PACKAGE):
            return '%s:%d' % (name, f.f_lineno)
        f = f.f_back
    return ''
