package bulkhead.lab.testkit

import bulkhead.lab.process.Children
import bulkhead.scratch.ScratchRoot

/**
 * The lab tests' temporary files and directories ([[ScratchRoot]]): deleted when the test JVM exits, once the processes
 * the tests started are stopped. Children is made as Scratch is, not first in the exit hook: made during the JVM's
 * exit, it could not add its own hook and would fail, and nothing would be deleted. Others may pass through the root,
 * not list it: PostgreSQL runs as its own user in a directory under it. A spec that must read a file after a failure
 * reads it into its message.
 */
object Scratch extends ScratchRoot("bulkhead-lab-tests-", { val children = Children; () => children.stopAll() },
  permissions = Some("rwx--x--x"))
