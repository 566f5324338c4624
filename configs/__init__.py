"""ranker's shipped data tables, installed as the package ``ranker.configs``.

This folder stays at the top of the repository, where users read and change the tables; the
package exists so that the wheel carries them and :mod:`ranker.shipped` finds them through
:mod:`importlib.resources` wherever ranker is installed. It holds no code.
"""
