import ora, { type Ora } from "ora";
import { onCancel } from "./cancel";

/**
 * A spinner on stderr that leaves the terminal as it is: ora's default `discardStdin` puts it in raw mode, where
 * Ctrl-C, Ctrl-\\ and Ctrl-Z are bytes nobody reads instead of signals (sindresorhus/ora#253). On Ctrl-C it is
 * stopped before the command ends, so the cursor and the last line come back.
 */
export function startSpinner(text: string): Ora {
  const spinner = ora({ text, stream: process.stderr, discardStdin: false }).start();
  onCancel(() => {
    if (spinner.isSpinning) spinner.stop();
  });
  return spinner;
}
