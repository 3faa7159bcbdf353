"""What grading a build needs, for everyone who grades: students, CI and the instructor.

Discovery of the labs and their ctest tests, the one execution path (session, ctest_run,
launch), the sandbox and the end marker every test run goes through,
judging (gtest_xml, verdict), scoring and the reports. Modules here import nothing
from the rest of the grader: trust/, classroom/ and the command line build
on them.
"""
