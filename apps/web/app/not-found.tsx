// The not-found page both apps show (in the request's language, from the app's messages).
export { default } from "@shelf/web-kit/not-found";
