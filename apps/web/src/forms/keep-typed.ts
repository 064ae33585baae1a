import { type FormEvent, startTransition } from "react";

/**
 * A form's submit handler that sends the form to its action without the reset React gives a form whose `action` prop
 * ran, so a refused form still shows what was typed and ticked. The button pressed is sent as it would be (a form
 * with several intents). Without script, the form posts to the same action through its `action` prop.
 */
export function keepTyped(action: (form: FormData) => void) {
  return (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget, (event.nativeEvent as SubmitEvent).submitter);
    startTransition(() => action(form));
  };
}
