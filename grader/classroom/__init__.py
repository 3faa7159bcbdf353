"""The instructor's class-level tools: batch grading, the class table, collecting at
the deadline, the gradebook and leaderboard, similarity, the known-wrong check and
the student export.

None of it is exported to students (export.py leaves this folder out whole), so
nothing in core/, trust/ or tools/ may import it.
"""
