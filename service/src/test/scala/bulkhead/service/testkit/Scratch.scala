package bulkhead.service.testkit

import bulkhead.scratch.ScratchRoot

/**
 * The service tests' temporary files and directories ([[ScratchRoot]]): deleted when the test JVM exits. A spec that
 * must read a file after a failure (a process's log) reads it into its message.
 */
object Scratch extends ScratchRoot("bulkhead-service-tests-")
